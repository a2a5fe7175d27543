// Owners by name: the engine records user and group names beside the numeric
// ids, and on restore maps names back to the ids of the machine it runs on.
// Lookups go through the C library, so NSS sources (LDAP, sssd) answer too.
import { addon } from './binding.js';
import { withPath } from './errors.js';

/**
 * Returns the name of user `uid` (getpwuid_r), or null when there is no such user.
 * @throws SystemError when the lookup itself fails (EIO, EMFILE, …); TypeError or RangeError for a bad uid; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function userName(uid: number): string | null {
  return withPath(undefined, () => addon().userName(uid));
}

/**
 * Returns the name of group `gid` (getgrgid_r), or null when there is no such group.
 * @throws SystemError when the lookup itself fails; TypeError or RangeError for a bad gid; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function groupName(gid: number): string | null {
  return withPath(undefined, () => addon().groupName(gid));
}

/**
 * Returns the uid of the user called `name` (getpwnam_r), or null when there is none.
 * @throws SystemError when the lookup itself fails; TypeError for a name that is not a string or holds a null byte; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function userId(name: string): number | null {
  return withPath(undefined, () => addon().userId(name));
}

/**
 * Returns the gid of the group called `name` (getgrnam_r), or null when there is none.
 * @throws SystemError when the lookup itself fails; TypeError for a name that is not a string or holds a null byte; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function groupId(name: string): number | null {
  return withPath(undefined, () => addon().groupId(name));
}
