import { BrickpostError, quote } from '../errors.js';
import { checkKeys as keys, checkStr as str, checkUint as uint, malformed as fail } from './fields.js';
import type { Json } from './json.js';

/**
 * Manifest records (FORMAT.md §manifest). The manifest is NDJSON: one record
 * per line, in this order: one `shipment` header, the tree entries (`dir`,
 * `file` and its `more` continuations) in manifest order, the `pack` index,
 * one `end` trailer. Field names are short because a 10-million-file
 * manifest repeats them 10 million times.
 */

export const MANIFEST_FORMAT = 'brickpost-manifest/v1';

/** Chunks listed in one `file` or `more` record at most. */
export const CHUNKS_PER_RECORD = 1024;

/** The shipment header, first record. */
export interface ShipmentRecord {
  t: 'shipment';
  format: typeof MANIFEST_FORMAT;
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

export type ChunkRef = PackedRef | HeldRef | DeltaRef;

/** The chunk length of any kind of ref. */
export function refLength(ref: ChunkRef): number {
  return ref.length === 2 ? ref[1] : ref[4];
}

/**
 * The basis of a file's delta refs: [path of a file in the base tree, its
 * size, the block size of its signature].
 */
export type Basis = [string, number, number];

export interface DirRecord {
  t: 'dir';
  p: string;
  mode: number;
  mtime: string;
}

export interface FileRecord {
  t: 'file';
  p: string;
  size: number;
  mode: number;
  mtime: string;
  c: ChunkRef[];
  /** Present when the file has delta refs: what they apply to. */
  b?: Basis;
}

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
  bytes: number;
  chunks: number;
  packs: number;
}

export type ManifestRecord = ShipmentRecord | DirRecord | FileRecord | MoreRecord | PackRecord | EndRecord;

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
} as const;

const HEX64 = /^[0-9a-f]{64}$/;
// Paths are bounded here only by the line; their length in bytes is the
// path grammar's rule (checkPath, UNSAFE_PATH), as FORMAT.md §9.7 says.
const PATH_FIELD_MAX = RECORD_LIMITS.lineBytes;
const NS = /^-?[0-9]{1,20}$/;

function refs(v: Json | undefined, where: string): ChunkRef[] {
  if (!Array.isArray(v) || v.length > CHUNKS_PER_RECORD) fail(where, `field c must be a list of at most ${CHUNKS_PER_RECORD} chunks`);
  return v.map((r, k) => {
    const w = `${where} chunk ${k}`;
    if (!Array.isArray(r) || (r.length !== 2 && r.length !== 5 && r.length !== 6)) {
      fail(w, 'chunk must be [id, length], [id, pack, offset, frame length, length] or [id, pack, offset, frame length, length, delta length]');
    }
    const id = r[0];
    if (typeof id !== 'string' || !HEX64.test(id)) fail(w, 'chunk id must be 64 lower-case hex digits');
    if (r.length === 2) return [id, uint(r[1], w, 'length', RECORD_LIMITS.maxChunkLength)] as HeldRef;
    const packed = [
      id,
      uint(r[1], w, 'pack'),
      uint(r[2], w, 'offset', RECORD_LIMITS.maxPackPlain),
      uint(r[3], w, 'frame length', RECORD_LIMITS.maxFrameLength),
      uint(r[4], w, 'length', RECORD_LIMITS.maxChunkLength),
    ] as PackedRef;
    if (r.length === 5) return packed;
    return [...packed, uint(r[5], w, 'delta length', RECORD_LIMITS.maxDeltaLength)] as DeltaRef;
  });
}

function basis(v: Json | undefined, where: string): Basis {
  if (!Array.isArray(v) || v.length !== 3) fail(where, 'field b must be [path, size, block size]');
  const bs = uint(v[2], where, 'b block size', 1 << 20);
  if (bs < 256 || (bs & (bs - 1)) !== 0) fail(where, 'field b block size must be a power of two in 256..1048576');
  return [str(v[0], where, 'b path', PATH_FIELD_MAX), uint(v[1], where, 'b size'), bs];
}

function bases(v: Json | undefined, where: string): Array<[string, number]> {
  if (!Array.isArray(v) || v.length > RECORD_LIMITS.maxBases) fail(where, `field bases must be a list of at most ${RECORD_LIMITS.maxBases} [id, seq] pairs`);
  return v.map((b) => {
    if (!Array.isArray(b) || b.length !== 2) fail(where, 'field bases must hold [id, seq] pairs');
    return [str(b[0], where, 'bases id', 64), uint(b[1], where, 'bases seq')] as [string, number];
  });
}

/**
 * Checks the shape of one parsed record: known type, exactly the fields of
 * that type, values of the right kind and range. Order and tree rules are
 * the ManifestReader's.
 * @throws BrickpostError MALFORMED
 */
export function checkRecord(v: Json, where: string): ManifestRecord {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(where, 'record must be an object');
  const o = v as Record<string, Json>;
  switch (o.t) {
    case 'shipment':
      keys(o, ['t', 'format', 'shipment', 'dataset', 'datasetId', 'seq', 'parent', 'bases', 'against', 'label', 'created', 'publisher', 'secret', 'chunker'], where);
      if (o.format !== MANIFEST_FORMAT) {
        throw new BrickpostError('UNSUPPORTED_VERSION', `${where}: manifest format ${quote(String(o.format))} is not ${MANIFEST_FORMAT}`, {
          hint: 'this drive was written by a newer brickpost; upgrade to read it',
        });
      }
      str(o.shipment, where, 'shipment', 64);
      str(o.dataset, where, 'dataset', 255);
      str(o.datasetId, where, 'datasetId', 64);
      uint(o.seq, where, 'seq');
      if (o.parent !== null) str(o.parent, where, 'parent', 64);
      if (o.against !== null && !HEX64.test(str(o.against, where, 'against', 64))) fail(where, 'field against must be null or 64 lower-case hex digits');
      str(o.label, where, 'label', RECORD_LIMITS.labelChars);
      str(o.created, where, 'created', 64);
      str(o.publisher, where, 'publisher', 16);
      if (!/^[A-Za-z0-9+/]{43}=$/.test(str(o.secret, where, 'secret', 44))) fail(where, 'field secret must be base64 of 32 bytes');
      if (o.chunker !== 'fastcdc-v1') fail(where, `unknown chunker ${quote(String(o.chunker))}`);
      return { ...(o as unknown as ShipmentRecord), bases: bases(o.bases, where) };
    case 'dir':
      keys(o, ['t', 'p', 'mode', 'mtime'], where);
      str(o.p, where, 'p', PATH_FIELD_MAX);
      uint(o.mode, where, 'mode', 0o7777);
      if (!NS.test(str(o.mtime, where, 'mtime', 21))) fail(where, 'field mtime must be decimal nanoseconds');
      return o as unknown as DirRecord;
    case 'file': {
      keys(o, 'b' in o ? ['t', 'p', 'size', 'mode', 'mtime', 'c', 'b'] : ['t', 'p', 'size', 'mode', 'mtime', 'c'], where);
      str(o.p, where, 'p', PATH_FIELD_MAX);
      uint(o.size, where, 'size');
      uint(o.mode, where, 'mode', 0o7777);
      if (!NS.test(str(o.mtime, where, 'mtime', 21))) fail(where, 'field mtime must be decimal nanoseconds');
      const f: FileRecord = { ...(o as unknown as FileRecord), c: refs(o.c, where) };
      if ('b' in o) f.b = basis(o.b, where);
      return f;
    }
    case 'more':
      keys(o, ['t', 'c'], where);
      return { t: 'more', c: refs(o.c, where) };
    case 'pack':
      keys(o, ['t', 'i', 'path', 'size', 'plain', 'chunks'], where);
      uint(o.i, where, 'i');
      str(o.path, where, 'path', 256);
      uint(o.size, where, 'size');
      uint(o.plain, where, 'plain', RECORD_LIMITS.maxPackPlain);
      uint(o.chunks, where, 'chunks');
      return o as unknown as PackRecord;
    case 'end':
      keys(o, ['t', 'dirs', 'files', 'bytes', 'chunks', 'packs'], where);
      for (const k of ['dirs', 'files', 'bytes', 'chunks', 'packs']) uint(o[k], where, k);
      return o as unknown as EndRecord;
    default:
      return fail(where, `unknown record type ${quote(String(o.t))}`);
  }
}
