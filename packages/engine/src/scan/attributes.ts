import * as posix from '@brickpost/posix';
import { fromBytes, quote, RECORD_LIMITS, type EntryAttributes, type Owner, type Xattr } from '@brickpost/manifest';
import { ACL_ACCESS, ACL_DEFAULT, aclText } from '../io/acl.js';
import { fsPath } from '../io/fs-path.js';

/**
 * What pack records of an entry besides its type, size, mode and mtime:
 * user.* extended attributes, POSIX ACLs (from their system.posix_acl_*
 * attributes, in text form) and the owner (ids, and names where this
 * machine knows them). Other attribute namespaces (security.*, trusted.*)
 * are not recorded: they are this machine's policy, not the data's.
 */
export class AttributeReader {
  private readonly users = new Map<number, string | null>();
  private readonly groups = new Map<number, string | null>();
  /** Set once the source file system said it has no extended attributes (ENOTSUP): not asked again. */
  private noXattrs = !posix.available;

  constructor(private readonly warn: (message: string, path: string) => void) {}

  /**
   * The attributes of the entry at `abs` (an escaped string), given its
   * owner ids and, where the walk knows it, the byte size of its attribute
   * name list (`listed`: 0 when it has none, -1 when not known).
   */
  read(abs: string, path: string, uid: number, gid: number, kind: 'dir' | 'file' | 'link' | 'special', listed = -1): EntryAttributes {
    const a: EntryAttributes = { o: this.owner(uid, gid) };
    // Linux allows no user.* attributes on symbolic links, and ACLs never: nothing to read there.
    if (kind === 'link' || this.noXattrs || listed === 0) return a;
    let names: Buffer[];
    try {
      names = posix.listXattrs(fsPath(abs));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTSUP' || code === 'EOPNOTSUPP') this.noXattrs = true;
      else if (code !== 'ENOENT') this.warn(`cannot list the extended attributes of ${quote(path)}: ${(e as Error).message}`, path);
      return a;
    }
    const x: Xattr[] = [];
    let total = 0;
    for (const raw of names.sort((a, b) => Buffer.compare(a, b))) {
      const name = fromBytes(raw);
      const wanted = name.startsWith('user.') || name === ACL_ACCESS || name === ACL_DEFAULT;
      if (!wanted) continue;
      let value: Buffer | null;
      try {
        value = posix.getXattr(fsPath(abs), raw);
      } catch (e) {
        this.warn(`cannot read extended attribute ${quote(name)} of ${quote(path)}: ${(e as Error).message}`, path);
        continue;
      }
      if (value === null) continue;
      if (name.startsWith('user.')) {
        if (x.length >= RECORD_LIMITS.xattrs || (total += value.length) > RECORD_LIMITS.xattrTotalBytes) {
          this.warn(
            `extended attribute ${quote(name)} of ${quote(path)} is not recorded: an entry carries at most ${RECORD_LIMITS.xattrs} attributes of ${RECORD_LIMITS.xattrTotalBytes} bytes in all`,
            path,
          );
          continue;
        }
        x.push([name, value.toString('base64')]);
        continue;
      }
      try {
        const text = aclText(value, name === ACL_DEFAULT);
        if (text !== null) (a.acl ??= {})[name === ACL_DEFAULT ? 'd' : 'a'] = text;
      } catch (e) {
        this.warn(`the ACL of ${quote(path)} is not recorded: ${(e as Error).message}`, path);
      }
    }
    if (x.length > 0) a.x = x;
    return a;
  }

  private owner(uid: number, gid: number): Owner {
    return [uid, gid, lookup(this.users, uid, posix.userName), lookup(this.groups, gid, posix.groupName)];
  }
}

function lookup(cache: Map<number, string | null>, id: number, find: (id: number) => string | null): string | null {
  let name = cache.get(id);
  if (name === undefined) {
    try {
      name = posix.available ? find(id) : null;
    } catch {
      name = null;
    }
    // Names a manifest cannot carry (controls, over 255 code units) are left out; the ids stay.
    if (name !== null && (name === '' || name.length > 255 || /[\u0000-\u001f\u007f-\u009f]/.test(name) || !name.isWellFormed())) name = null;
    cache.set(id, name);
  }
  return name;
}
