import { BrickpostError, checkAclText } from '@brickpost/manifest';

/**
 * POSIX ACLs between Linux's extended-attribute form
 * (system.posix_acl_access and system.posix_acl_default: a 4-byte version 2,
 * then 8-byte entries tag(u16) perm(u16) id(u32), little-endian) and the
 * text form a manifest carries (FORMAT.md §acl:
 * `user::rw-,user:1000:r--,group::r--,mask::r--,other::---`).
 */

export const ACL_ACCESS = 'system.posix_acl_access';
export const ACL_DEFAULT = 'system.posix_acl_default';

const VERSION = 2;
const TAGS: Record<number, string> = { 0x01: 'user', 0x02: 'user', 0x04: 'group', 0x08: 'group', 0x10: 'mask', 0x20: 'other' };
const TAG_OF: Record<string, [named: number, owner: number]> = { user: [0x02, 0x01], group: [0x08, 0x04], mask: [0, 0x10], other: [0, 0x20] };
const UNDEFINED_ID = 0xffffffff;

/**
 * The text form of an ACL xattr value; null for a minimal access ACL (one
 * that only says what the mode says), which is not recorded.
 * @throws BrickpostError MALFORMED for a value that is not a version 2 ACL
 */
export function aclText(value: Buffer, isDefault: boolean): string | null {
  if (value.length < 4 || (value.length - 4) % 8 !== 0 || value.readUInt32LE(0) !== VERSION) {
    throw new BrickpostError('MALFORMED', `ACL attribute of ${value.length} bytes is not a version ${VERSION} POSIX ACL`);
  }
  const entries: string[] = [];
  for (let at = 4; at < value.length; at += 8) {
    const tag = value.readUInt16LE(at);
    const perm = value.readUInt16LE(at + 2);
    const id = value.readUInt32LE(at + 4);
    const name = TAGS[tag];
    if (!name || perm > 7) throw new BrickpostError('MALFORMED', `ACL entry with tag ${tag} and permissions ${perm} is not one brickpost knows`);
    const named = tag === 0x02 || tag === 0x08;
    entries.push(`${name}:${named ? id : ''}:${perm & 4 ? 'r' : '-'}${perm & 2 ? 'w' : '-'}${perm & 1 ? 'x' : '-'}`);
  }
  if (!isDefault && entries.length <= 3) return null;
  return checkAclText(entries.join(','), 'ACL', isDefault);
}

/** The xattr value of an ACL in text form (one checkAclText accepted). */
export function aclValue(text: string): Buffer {
  const parts = text.split(',');
  const out = Buffer.alloc(4 + 8 * parts.length);
  out.writeUInt32LE(VERSION, 0);
  parts.forEach((e, i) => {
    const [tag, qualifier, perms] = e.split(':') as [string, string, string];
    const [named, owner] = TAG_OF[tag]!;
    const at = 4 + 8 * i;
    out.writeUInt16LE(qualifier === '' ? owner : named, at);
    out.writeUInt16LE((perms[0] === 'r' ? 4 : 0) | (perms[1] === 'w' ? 2 : 0) | (perms[2] === 'x' ? 1 : 0), at + 2);
    out.writeUInt32LE(qualifier === '' ? UNDEFINED_ID : Number(qualifier), at + 4);
  });
  return out;
}
