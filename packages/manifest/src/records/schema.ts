/**
 * The checks of manifest records (FORMAT.md §manifest): each line's JSON,
 * field by field, into a ManifestRecord (types.ts), and back. A record
 * that breaks a rule is MALFORMED, naming where and which field.
 */
import { BrickpostError, quote } from '../errors.js';
import { fromField, toBytes, toField } from './bytes.js';
import { checkKeys as keys, checkStr as str, checkUint as uint, malformed as fail } from './fields.js';
import type { Json } from './json.js';
import { isHex64, refs } from './chunk-refs.js';
import {
  MANIFEST_FORMAT,
  MANIFEST_FORMATS,
  RECORD_LIMITS,
  manifestVersion,
  type Acl,
  type Basis,
  type EndRecord,
  type EntryAttributes,
  type FileRecord,
  type LinkRecord,
  type ManifestRecord,
  type MoreRecord,
  type Owner,
  type PackRecord,
  type ShipmentRecord,
  type SpecialKind,
  type SpecialRecord,
  type Xattr,
} from './types.js';

// Paths are bounded here only by the line; their length in bytes is the
// path grammar's rule (checkPath, UNSAFE_PATH), as FORMAT.md §9.7 says.
const PATH_FIELD_MAX = RECORD_LIMITS.lineBytes;
const NS = /^-?[0-9]{1,20}$/;

/** A path-valued field: a string (v1), or a string or its U+0000 base64 form (v2), as an escaped string. */
function pathField(v: Json | undefined, where: string, field: string, version: 1 | 2): string {
  const text = str(v, where, field, PATH_FIELD_MAX);
  return version === 2 ? fromField(text, where, field) : text;
}

function basis(v: Json | undefined, where: string, version: 1 | 2): Basis {
  if (!Array.isArray(v) || v.length !== 3) fail(where, 'field b must be [path, size, block size]');
  const bs = uint(v[2], where, 'b block size', 1 << 20);
  if (bs < 256 || (bs & (bs - 1)) !== 0) fail(where, 'field b block size must be a power of two in 256..1048576');
  return [pathField(v[0], where, 'b path', version), uint(v[1], where, 'b size'), bs];
}

function bases(v: Json | undefined, where: string): Array<[string, number]> {
  if (!Array.isArray(v) || v.length > RECORD_LIMITS.maxBases) fail(where, `field bases must be a list of at most ${RECORD_LIMITS.maxBases} [id, seq] pairs`);
  return v.map((b) => {
    if (!Array.isArray(b) || b.length !== 2) fail(where, 'field bases must hold [id, seq] pairs');
    return [str(b[0], where, 'bases id', 64), uint(b[1], where, 'bases seq')] as [string, number];
  });
}

/** Exactly the fields `required`, and any of `optional`. */
function keysWith(o: Record<string, Json>, required: readonly string[], optional: readonly string[], where: string): void {
  // keys(o, [...required, ...the optional ones o has]), without making that list for each record.
  let found = 0;
  for (const k of Object.keys(o)) {
    if (required.includes(k)) found++;
    else if (!optional.includes(k)) fail(where, `unknown field ${quote(k)}`);
  }
  if (found !== required.length) keys(o, required.concat(optional.filter((k) => k in o)), where);
}

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function xattrs(v: Json | undefined, where: string): Xattr[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > RECORD_LIMITS.xattrs)
    fail(where, `field x must be a list of 1 to ${RECORD_LIMITS.xattrs} [name, value] pairs`);
  let total = 0;
  let last: Buffer | null = null;
  return v.map((pair, k) => {
    const w = `${where} attribute ${k}`;
    if (!Array.isArray(pair) || pair.length !== 2) fail(w, 'an extended attribute must be [name, base64 value]');
    const name = pathField(pair[0], w, 'name', 2);
    const nameBytes = toBytes(name);
    if (nameBytes.length === 0 || nameBytes.length > RECORD_LIMITS.xattrNameBytes || nameBytes.includes(0)) {
      fail(w, `attribute name ${quote(name)} must be 1 to ${RECORD_LIMITS.xattrNameBytes} bytes without NUL`);
    }
    if (last && Buffer.compare(last, nameBytes) >= 0) fail(w, `attribute ${quote(name)} is out of order or repeated (names ascend by bytes)`);
    last = nameBytes;
    const value = str(pair[1], w, 'value', Math.ceil(RECORD_LIMITS.xattrValueBytes / 3) * 4);
    if (!B64.test(value)) fail(w, `value of attribute ${quote(name)} is not padded base64`);
    const bytes = Buffer.from(value, 'base64');
    if (bytes.toString('base64') !== value) fail(w, `value of attribute ${quote(name)} is not canonical base64`);
    if (bytes.length > RECORD_LIMITS.xattrValueBytes) fail(w, `value of attribute ${quote(name)} is longer than ${RECORD_LIMITS.xattrValueBytes} bytes`);
    total += bytes.length;
    if (total > RECORD_LIMITS.xattrTotalBytes) {
      throw new BrickpostError('LIMIT_EXCEEDED', `${where}: extended attributes hold more than ${RECORD_LIMITS.xattrTotalBytes} bytes`);
    }
    return [name, value] as Xattr;
  });
}

function ownerName(v: Json | undefined, where: string, field: string): string | null {
  if (v === null) return null;
  const n = str(v, where, field, RECORD_LIMITS.ownerName);
  if (n === '' || CONTROL.test(n) || !n.isWellFormed()) fail(where, `${field} name ${quote(n)} must be non-empty text without control characters`);
  return n;
}

function owner(v: Json | undefined, where: string): Owner {
  if (!Array.isArray(v) || v.length !== 4) fail(where, 'field o must be [uid, gid, user name or null, group name or null]');
  return [uint(v[0], where, 'o uid', 0xffffffff), uint(v[1], where, 'o gid', 0xffffffff), ownerName(v[2], where, 'user'), ownerName(v[3], where, 'group')];
}

function acl(v: Json | undefined, where: string, dir: boolean): Acl {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(where, 'field acl must be an object');
  const o = v as Record<string, Json>;
  keysWith(o, [], dir ? ['a', 'd'] : ['a'], where);
  if (!('a' in o) && !('d' in o)) fail(where, 'field acl holds neither a nor d');
  const out: Acl = {};
  if ('a' in o) out.a = checkAclText(str(o.a, where, 'acl a', RECORD_LIMITS.aclChars), `${where} access ACL`, false);
  if ('d' in o) out.d = checkAclText(str(o.d, where, 'acl d', RECORD_LIMITS.aclChars), `${where} default ACL`, true);
  return out;
}

const ACL_ENTRY = /^(user|group|mask|other):(0|[1-9][0-9]{0,9})?:([r-][w-][x-])$/;

/**
 * Checks an ACL in text form (FORMAT.md §acl): `tag:qualifier:perms`
 * entries joined by commas in canonical order (user::, user:ID ascending,
 * group::, group:ID ascending, mask::, other::), a mask exactly when there
 * are named entries, and for an access ACL more than the three entries the
 * mode already says (a default ACL may be minimal: it still says something).
 * A mask without named entries is allowed (setfacl -x leaves one).
 * @throws BrickpostError MALFORMED
 */
export function checkAclText(text: string, where: string, isDefault: boolean): string {
  const rank = { user: 0, group: 2, mask: 4, other: 5 } as const;
  let prev = -1;
  let prevId = -1;
  let named = 0;
  let mask = false;
  const seen = new Set<string>();
  for (const e of text.split(',')) {
    const m = ACL_ENTRY.exec(e);
    if (!m) fail(where, `entry ${quote(e)} is not tag:qualifier:rwx`);
    const tag = m[1] as keyof typeof rank;
    const id = m[2] === undefined ? -1 : Number(m[2]);
    if (id > 0xffffffff) fail(where, `entry ${quote(e)} names an id past 2^32 - 1`);
    if (id >= 0 && tag !== 'user' && tag !== 'group') fail(where, `entry ${quote(e)}: only user and group entries name an id`);
    const r = rank[tag] + (id >= 0 ? 1 : 0);
    if (r < prev || (r === prev && (id < 0 || id <= prevId))) fail(where, `entry ${quote(e)} is out of order or repeated`);
    prev = r;
    prevId = id;
    if (id >= 0) named++;
    if (tag === 'mask') mask = true;
    if (id < 0) seen.add(tag);
  }
  for (const t of ['user', 'group', 'other']) if (!seen.has(t)) fail(where, `no ${t}:: entry`);
  if (named > 0 && !mask) fail(where, 'named entries without a mask:: entry');
  if (named === 0 && !mask && !isDefault) fail(where, 'holds only what the mode says (a minimal access ACL is not recorded)');
  return text;
}

const ATTRS = ['x', 'o', 'acl'] as const;
const NONE: readonly string[] = [];
const DIR_KEYS = ['t', 'p', 'mode', 'mtime'] as const;
const FILE_KEYS = ['t', 'p', 'size', 'mode', 'mtime', 'c'] as const;
const FILE_OPTIONAL_V1 = ['b'] as const;
const FILE_OPTIONAL_V2 = ['b', ...ATTRS, 'changing'] as const;

function attributes(o: Record<string, Json>, where: string, dir: boolean): EntryAttributes {
  const a: EntryAttributes = {};
  if ('x' in o) a.x = xattrs(o.x, where);
  if ('o' in o) a.o = owner(o.o, where);
  if ('acl' in o) a.acl = acl(o.acl, where, dir);
  return a;
}

function mtime(v: Json | undefined, where: string): string {
  const t = str(v, where, 'mtime', 21);
  if (!NS.test(t)) fail(where, 'field mtime must be decimal nanoseconds');
  return t;
}

/** The `changing` mark: present only as true. */
function changing(v: Json | undefined, where: string): true {
  if (v !== true) fail(where, 'field changing must be true when present');
  return true;
}

const SPECIAL_KINDS: readonly SpecialKind[] = ['fifo', 'socket', 'char', 'block'];

/**
 * Checks the shape of one parsed record: known type, exactly the fields of
 * that type, values of the right kind and range; for a v2 record also the
 * kinds and fields v2 adds. Paths and targets come back as escaped strings.
 * Order and tree rules are the ManifestReader's.
 * @throws BrickpostError MALFORMED, LIMIT_EXCEEDED, UNSUPPORTED_VERSION (a shipment header of another format)
 */
export function checkRecord(v: Json, where: string, version: 1 | 2 = 1): ManifestRecord {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(where, 'record must be an object');
  const o = v as Record<string, Json>;
  const v2only = (): void => {
    if (version !== 2) fail(where, `record type ${quote(String(o.t))} needs manifest format ${MANIFEST_FORMAT}`);
  };
  switch (o.t) {
    case 'shipment':
      keys(
        o,
        ['t', 'format', 'shipment', 'dataset', 'datasetId', 'seq', 'parent', 'bases', 'against', 'label', 'created', 'publisher', 'secret', 'chunker'],
        where,
      );
      if (typeof o.format !== 'string' || manifestVersion(o.format) === undefined) {
        throw new BrickpostError(
          'UNSUPPORTED_VERSION',
          `${where}: manifest format ${quote(String(o.format))} is not one this version reads (${MANIFEST_FORMATS.join(', ')})`,
          {
            hint: 'this drive was written by a newer brickpost; upgrade to read it',
          },
        );
      }
      str(o.shipment, where, 'shipment', 64);
      str(o.dataset, where, 'dataset', 255);
      str(o.datasetId, where, 'datasetId', 64);
      uint(o.seq, where, 'seq');
      if (o.parent !== null) str(o.parent, where, 'parent', 64);
      if (o.against !== null && !isHex64(str(o.against, where, 'against', 64))) fail(where, 'field against must be null or 64 lower-case hex digits');
      str(o.label, where, 'label', RECORD_LIMITS.labelChars);
      str(o.created, where, 'created', 64);
      str(o.publisher, where, 'publisher', 16);
      if (!/^[A-Za-z0-9+/]{43}=$/.test(str(o.secret, where, 'secret', 44))) fail(where, 'field secret must be base64 of 32 bytes');
      if (o.chunker !== 'fastcdc-v1') fail(where, `unknown chunker ${quote(String(o.chunker))}`);
      return { ...(o as unknown as ShipmentRecord), bases: bases(o.bases, where) };
    case 'dir':
      keysWith(o, DIR_KEYS, version === 2 ? ATTRS : NONE, where);
      return {
        t: 'dir',
        p: pathField(o.p, where, 'p', version),
        mode: uint(o.mode, where, 'mode', 0o7777),
        mtime: mtime(o.mtime, where),
        ...attributes(o, where, true),
      };
    case 'file': {
      keysWith(o, FILE_KEYS, version === 2 ? FILE_OPTIONAL_V2 : FILE_OPTIONAL_V1, where);
      const f: FileRecord = {
        t: 'file',
        p: pathField(o.p, where, 'p', version),
        size: uint(o.size, where, 'size'),
        mode: uint(o.mode, where, 'mode', 0o7777),
        mtime: mtime(o.mtime, where),
        c: refs(o.c, where, version),
      };
      if ('b' in o) f.b = basis(o.b, where, version);
      if ('changing' in o) f.changing = changing(o.changing, where);
      return Object.assign(f, attributes(o, where, false));
    }
    case 'link': {
      v2only();
      keysWith(o, ['t', 'p', 'target', 'mtime'], ['o'], where);
      const target = pathField(o.target, where, 'target', 2);
      const bytes = toBytes(target);
      if (bytes.length === 0 || bytes.includes(0) || bytes.length > RECORD_LIMITS.targetBytes)
        fail(where, `link target must be 1 to ${RECORD_LIMITS.targetBytes} bytes without NUL`);
      const l: LinkRecord = { t: 'link', p: pathField(o.p, where, 'p', 2), target, mtime: mtime(o.mtime, where) };
      if ('o' in o) l.o = owner(o.o, where);
      return l;
    }
    case 'hard':
      v2only();
      keys(o, ['t', 'p', 'to'], where);
      return { t: 'hard', p: pathField(o.p, where, 'p', 2), to: pathField(o.to, where, 'to', 2) };
    case 'special': {
      v2only();
      const kind = o.kind as SpecialKind;
      if (!SPECIAL_KINDS.includes(kind)) fail(where, `special kind ${quote(String(o.kind))} is not fifo, socket, char or block`);
      const device = kind === 'char' || kind === 'block';
      keysWith(o, device ? ['t', 'p', 'kind', 'mode', 'mtime', 'dev'] : ['t', 'p', 'kind', 'mode', 'mtime'], ATTRS, where);
      const r: SpecialRecord = {
        t: 'special',
        p: pathField(o.p, where, 'p', 2),
        kind,
        mode: uint(o.mode, where, 'mode', 0o7777),
        mtime: mtime(o.mtime, where),
      };
      if (device) {
        if (!Array.isArray(o.dev) || o.dev.length !== 2) fail(where, 'field dev must be [major, minor]');
        r.dev = [uint(o.dev[0], where, 'dev major', 0xffffffff), uint(o.dev[1], where, 'dev minor', 0xffffffff)];
      }
      return Object.assign(r, attributes(o, where, false));
    }
    case 'more': {
      keysWith(o, ['t', 'c'], version === 2 ? ['changing'] : [], where);
      const m: MoreRecord = { t: 'more', c: refs(o.c, where, version) };
      if ('changing' in o) m.changing = changing(o.changing, where);
      return m;
    }
    case 'pack':
      keys(o, ['t', 'i', 'path', 'size', 'plain', 'chunks'], where);
      uint(o.i, where, 'i');
      str(o.path, where, 'path', 256);
      uint(o.size, where, 'size');
      uint(o.plain, where, 'plain', RECORD_LIMITS.maxPackPlain);
      uint(o.chunks, where, 'chunks');
      return o as unknown as PackRecord;
    case 'end': {
      const counts = version === 2 ? ['dirs', 'files', 'links', 'hard', 'specials', 'bytes', 'chunks', 'packs'] : ['dirs', 'files', 'bytes', 'chunks', 'packs'];
      keys(o, ['t', ...counts], where);
      for (const k of counts) uint(o[k], where, k);
      return o as unknown as EndRecord;
    }
    default:
      return fail(where, `unknown record type ${quote(String(o.t))}`);
  }
}

/**
 * A record as its line holds it: for a v2 manifest, paths, targets and
 * attribute names in field form (bytes.ts). Members keep the order of the
 * FORMAT.md tables.
 */
export function recordToJson(r: ManifestRecord, version: 1 | 2): unknown {
  if (version === 1) return r;
  switch (r.t) {
    case 'dir':
      return { t: 'dir', p: toField(r.p), mode: r.mode, mtime: r.mtime, ...attributesToJson(r) };
    case 'file':
      return {
        t: 'file',
        p: toField(r.p),
        size: r.size,
        mode: r.mode,
        mtime: r.mtime,
        c: r.c,
        ...(r.b ? { b: [toField(r.b[0]), r.b[1], r.b[2]] } : {}),
        ...attributesToJson(r),
        ...(r.changing ? { changing: true } : {}),
      };
    case 'link':
      return { t: 'link', p: toField(r.p), target: toField(r.target), mtime: r.mtime, ...(r.o ? { o: r.o } : {}) };
    case 'hard':
      return { t: 'hard', p: toField(r.p), to: toField(r.to) };
    case 'special':
      return { t: 'special', p: toField(r.p), kind: r.kind, mode: r.mode, mtime: r.mtime, ...(r.dev ? { dev: r.dev } : {}), ...attributesToJson(r) };
    default:
      return r;
  }
}

function attributesToJson(a: EntryAttributes): Record<string, unknown> {
  return {
    ...(a.x ? { x: a.x.map(([n, v]) => [toField(n), v]) } : {}),
    ...(a.o ? { o: a.o } : {}),
    ...(a.acl ? { acl: a.acl } : {}),
  };
}
