/**
 * Manifest records (FORMAT.md §manifest). The manifest is NDJSON: one record
 * per line, in this order: one `shipment` header, the tree entries (`dir`,
 * `file` and its `more` continuations, and in v2 `link`, `hard` and
 * `special`) in manifest order, the `pack` index, one `end` trailer. Field
 * names are short because a 10-million-file manifest repeats them 10
 * million times.
 *
 * Version 2 carries a tree exactly as the source holds it: names as bytes
 * (bytes.ts), symbolic links, hard links, holes, special files, extended
 * attributes, ACLs and owners. Version 1 manifests (drives written before)
 * are read with their stricter name rules. In memory, paths and targets are
 * escaped strings (bytes.ts) whatever the version; the field form is only on
 * the line.
 */

/** The manifest format writers write. */
export const MANIFEST_FORMAT = 'brickpost-manifest/v2';
/** The format of manifests written before version 2; readers still read it. */
export const MANIFEST_FORMAT_V1 = 'brickpost-manifest/v1';
/** Every manifest format a reader reads, oldest first. */
export const MANIFEST_FORMATS = [MANIFEST_FORMAT_V1, MANIFEST_FORMAT] as const;
export type ManifestFormat = (typeof MANIFEST_FORMATS)[number];

/** 1 or 2, from a format string; undefined for one this version does not read. */
export function manifestVersion(format: string): 1 | 2 | undefined {
  return format === MANIFEST_FORMAT ? 2 : format === MANIFEST_FORMAT_V1 ? 1 : undefined;
}

/** Chunks listed in one `file` or `more` record at most. */
export const CHUNKS_PER_RECORD = 1024;

/** The shipment header, first record. */
export interface ShipmentRecord {
  t: 'shipment';
  format: ManifestFormat;
  shipment: string;
  dataset: string;
  datasetId: string;
  seq: number;
  parent: string | null;
  /**
   * The shipments whose tree this one is relative to, as [id, seq]: a
   * destination holding any one of them can apply it. Empty for a
   * self-contained shipment.
   */
  bases: Array<[string, number]>;
  /** SHA-256 (hex) of the signature or request file this shipment was built against, or null. */
  against: string | null;
  label: string;
  created: string;
  /** minisign key id of the publisher, 16 hex digits. */
  publisher: string;
  /** base64 of the 32-byte dataset secret the chunk id key derives from. */
  secret: string;
  chunker: 'fastcdc-v1';
}

/**
 * Where a chunk is stored in this shipment: [id (64 hex), pack index, offset
 * of its frame in the pack's plaintext, frame length, raw length].
 */
export type PackedRef = [string, number, number, number, number];

/** A chunk the destination already holds (in its base tree): [id, length]. */
export type HeldRef = [string, number];

/**
 * A chunk stored as a delta against the file's basis (FileRecord.b): the
 * frame decodes to `deltaLength` bytes of bpdelta1, which applied to the
 * basis file rebuild the chunk. [id, pack, offset, frame length, length, delta length].
 */
export type DeltaRef = [string, number, number, number, number, number];

/** A hole of a sparse file (v2): `length` bytes of zeros that are neither stored nor written. */
export type HoleRef = [number];

export type ChunkRef = PackedRef | HeldRef | DeltaRef | HoleRef;

/** The length in the file of any kind of ref. */
export function refLength(ref: ChunkRef): number {
  return ref.length === 1 ? ref[0] : ref.length === 2 ? ref[1] : ref[4];
}

/** Whether a ref is a hole (no chunk). */
export function isHole(ref: ChunkRef): ref is HoleRef {
  return ref.length === 1;
}

/**
 * The basis of a file's delta refs: [path of a file in the base tree, its
 * size, the block size of its signature].
 */
export type Basis = [string, number, number];

/** An extended attribute (v2): [name (escaped string), value in padded base64]. */
export type Xattr = [string, string];

/** Owner (v2): [uid, gid, user name or null, group name or null], as the source had them. */
export type Owner = [number, number, string | null, string | null];

/** POSIX ACLs (v2) beyond what the mode says, in text form (FORMAT.md §acl): `a` access, `d` default (folders). */
export interface Acl {
  a?: string;
  d?: string;
}

/** Attributes any v2 entry but a hard link may carry. */
export interface EntryAttributes {
  /** Extended attributes, names ascending by bytes. */
  x?: Xattr[];
  o?: Owner;
  acl?: Acl;
}

export interface DirRecord extends EntryAttributes {
  t: 'dir';
  p: string;
  mode: number;
  mtime: string;
}

export interface FileRecord extends EntryAttributes {
  t: 'file';
  p: string;
  size: number;
  mode: number;
  mtime: string;
  c: ChunkRef[];
  /** Present when the file has delta refs: what they apply to. */
  b?: Basis;
}

/** A symbolic link (v2): `target` as the link holds it (escaped string), never resolved by a reader. */
export interface LinkRecord {
  t: 'link';
  p: string;
  target: string;
  mtime: string;
  o?: Owner;
}

/** A hard link (v2): another name of the file an earlier `file` record at path `to` describes. */
export interface HardRecord {
  t: 'hard';
  p: string;
  to: string;
}

export type SpecialKind = 'fifo' | 'socket' | 'char' | 'block';

/** A FIFO, socket or device (v2); `dev` is [major, minor] for a device. */
export interface SpecialRecord extends EntryAttributes {
  t: 'special';
  p: string;
  kind: SpecialKind;
  mode: number;
  mtime: string;
  dev?: [number, number];
}

/** A tree entry: what has a path. */
export type EntryRecord = DirRecord | FileRecord | LinkRecord | HardRecord | SpecialRecord;

/** More chunks of the file record just before it. */
export interface MoreRecord {
  t: 'more';
  c: ChunkRef[];
}

export interface PackRecord {
  t: 'pack';
  i: number;
  path: string;
  /** Size of the encrypted pack file in bytes. */
  size: number;
  /** Size of the pack's plaintext (header frame and chunk frames). */
  plain: number;
  chunks: number;
}

export interface EndRecord {
  t: 'end';
  dirs: number;
  files: number;
  /** v2: `link`, `hard` and `special` records. */
  links?: number;
  hard?: number;
  specials?: number;
  bytes: number;
  chunks: number;
  packs: number;
}

export type ManifestRecord = ShipmentRecord | EntryRecord | MoreRecord | PackRecord | EndRecord;

/** Entries an end record counts: dirs, files and (v2) links, hard links and special files. */
export function entriesOf(e: Pick<EndRecord, 'dirs' | 'files' | 'links' | 'hard' | 'specials'>): number {
  return e.dirs + e.files + (e.links ?? 0) + (e.hard ?? 0) + (e.specials ?? 0);
}

/** Limits on values in records, normative (FORMAT.md §limits). */
export const RECORD_LIMITS = {
  lineBytes: 1 << 20,
  labelChars: 1024,
  /** The chunker's maximum (FORMAT.md §chunking). */
  maxChunkLength: 4 << 20,
  /** A raw-block frame of a maximal chunk, with headers. */
  maxFrameLength: (4 << 20) + 4096,
  maxPackPlain: 2 ** 32 - 1,
  /** Decoded length of one delta frame: a maximal chunk plus op headers. */
  maxDeltaLength: (4 << 20) + 65536,
  /** Shipments one shipment may name as bases. */
  maxBases: 16,
  /** v2: bytes of a link target. */
  targetBytes: 4095,
  /** v2: extended attributes of one entry, bytes of a name, of a value, and of all values. */
  xattrs: 128,
  xattrNameBytes: 255,
  xattrValueBytes: 65536,
  xattrTotalBytes: 262144,
  /** v2: UTF-16 code units of an owner or group name. */
  ownerName: 255,
  /** v2: characters of an ACL in text form. */
  aclChars: 65536,
  /** v2: a hole's length (any file size). */
  maxHole: Number.MAX_SAFE_INTEGER,
} as const;
