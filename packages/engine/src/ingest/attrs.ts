import { fchownSync, lchownSync } from 'node:fs';
import * as posix from '@brickpost/posix';
import { fromBytes, quote, toBytes, type EntryAttributes } from '@brickpost/manifest';
import { ACL_ACCESS, ACL_DEFAULT, aclValue } from '../io/acl.js';
import { fsPath } from '../io/fs-path.js';
import type { ApplyPolicy } from './policy.js';

/** Reasons of IngestSummary.notApplied for attributes. */
export const NOT_APPLIED = {
  owner: 'entries with another owner or group (--owners, as root)',
  acl: 'entries with ACLs (--acls)',
  xattrs: 'entries with extended attributes (left out with --no-xattrs)',
  xattrsFailed: 'extended attributes the file system refused',
  aclFailed: 'ACLs the file system refused',
  setid: 'entries with setuid or setgid bits (--setid, as root)',
} as const;

/**
 * Applies what a policy allows of an entry's recorded attributes: user
 * extended attributes, ACLs, owner and group (by name where this machine
 * knows the name, else by number), through a handle of the entry (or, for a
 * symbolic link, its path without following it). What the policy leaves
 * out, or the destination refuses, is counted by reason and warned about
 * once per reason. Never throws for an attribute the destination refuses.
 */
export class AttrApplier {
  readonly notApplied: Record<string, number> = {};
  private readonly warned = new Set<string>();
  private readonly myUid = typeof process.getuid === 'function' ? process.getuid() : -1;
  private readonly myGid = typeof process.getgid === 'function' ? process.getgid() : -1;

  constructor(
    private readonly policy: ApplyPolicy,
    private readonly warn: (message: string, path: string) => void,
  ) {}

  /** Counts `reason` for the entry at `path`, warning the first time. */
  miss(reason: string, path: string, detail = ''): void {
    this.notApplied[reason] = (this.notApplied[reason] ?? 0) + 1;
    if (this.warned.has(reason)) return;
    this.warned.add(reason);
    this.warn(`not applied: ${reason}${detail ? `: ${detail}` : ''} (first at ${quote(path)}; the summary counts them all)`, path);
  }

  /**
   * Owner, extended attributes and ACLs of a file, folder or special file,
   * through its open handle `fd`; before its mode and times are set. With
   * `replace` (an entry kept in place), user.* attributes the record does
   * not list are removed, so DEST holds exactly the recorded ones.
   */
  /** Whether toFd(fd, …, a, false) of a file makes any call on `fd` (else it only counts what it does not apply, and any fd will do). */
  usesFd(a: EntryAttributes): boolean {
    return (a.o !== undefined && this.policy.owners) || (a.x !== undefined && this.policy.xattrs) || (a.acl !== undefined && this.policy.acls);
  }

  toFd(fd: number, path: string, a: EntryAttributes, isDir: boolean, replace = false): void {
    if (a.o) this.owner(a.o, path, (uid, gid) => fchownSync(fd, uid, gid));
    if (replace && this.policy.xattrs) this.dropOthers(fd, path, a);
    if (a.x) {
      if (!this.policy.xattrs) this.miss(NOT_APPLIED.xattrs, path);
      else {
        for (const [name, value] of a.x) {
          try {
            posix.fSetXattr(fd, toBytes(name), Buffer.from(value, 'base64'));
          } catch (e) {
            this.miss(NOT_APPLIED.xattrsFailed, path, (e as Error).message);
          }
        }
      }
    }
    if (a.acl) {
      if (!this.policy.acls) this.miss(NOT_APPLIED.acl, path);
      else {
        const set: Array<[string, string | undefined]> = [
          [ACL_ACCESS, a.acl.a],
          [ACL_DEFAULT, isDir ? a.acl.d : undefined],
        ];
        for (const [name, text] of set) {
          if (text === undefined) continue;
          try {
            posix.fSetXattr(fd, name, aclValue(text));
          } catch (e) {
            this.miss(NOT_APPLIED.aclFailed, path, (e as Error).message);
          }
        }
      }
    }
  }

  private dropOthers(fd: number, path: string, a: EntryAttributes): void {
    const keep = new Set((a.x ?? []).map(([n]) => n));
    let names: Buffer[];
    try {
      names = posix.fListXattrs(fd);
    } catch {
      return;
    }
    for (const raw of names) {
      const name = fromBytes(raw);
      if (!name.startsWith('user.') || keep.has(name)) continue;
      try {
        posix.fRemoveXattr(fd, raw);
      } catch (e) {
        this.miss(NOT_APPLIED.xattrsFailed, path, (e as Error).message);
      }
    }
  }

  /** The owner of a symbolic link, by its path without following it. */
  toLink(abs: string, path: string, a: EntryAttributes): void {
    if (a.o) this.owner(a.o, path, (uid, gid) => lchownSync(fsPath(abs), uid, gid));
  }

  private owner([uid, gid, user, group]: NonNullable<EntryAttributes['o']>, path: string, chown: (uid: number, gid: number) => void): void {
    if (!this.policy.owners) {
      if (uid !== this.myUid || gid !== this.myGid) this.miss(NOT_APPLIED.owner, path);
      return;
    }
    const u = (user !== null ? posix.userId(user) : null) ?? uid;
    const g = (group !== null ? posix.groupId(group) : null) ?? gid;
    try {
      chown(u, g);
    } catch (e) {
      this.miss(NOT_APPLIED.owner, path, (e as Error).message);
    }
  }
}
