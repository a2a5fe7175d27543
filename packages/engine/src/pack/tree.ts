import type { Catalog } from '../catalog/catalog.js';
import { CHUNK_ENTRY, chunkIds, HOLE_ID, newestTree, TreeQueries, treeStatKey } from '../catalog/trees.js';
import { toField, type ChunkRef } from '@brickpost/manifest';
import type { SourceEntry } from '../scan/index.js';
import { ReferenceCursor } from './ref-cursor.js';

/**
 * Trees of published shipments, as the catalog keeps them (migration 002):
 *
 * - tree row: one file of a shipment's tree, with its stat fields (size,
 *   mtime, ctime, inode) and its chunk list. Paths are stored in their
 *   manifest field form (a name that is not UTF-8 as U+0000 and base64), so
 *   SQLite's UTF-8 text never alters one.
 * - chunk list: per chunk, the 32-byte id then the length as a 4-byte
 *   big-endian integer; a hole of a sparse file is an all-zero id with the
 *   hole's length (split in pieces below 2^32, merged again when read).
 * - content key: the SHA-256 of a chunk list; two file versions with the same
 *   key have the same bytes. Signatures (sigs) are stored by content key.
 * - reference tree: the newest tree in the catalog, the stat cache: a file
 *   whose stat fields equal its row there is taken to be unchanged.
 * - basis: the old version of a changed file, at the same path in every base
 *   tree with one content key and a stored signature; deltas apply to it.
 */

export { CHUNK_ENTRY, chunkIds };

/** A file of the reference tree: its path (field form), the path of the row before it when known, its chunk list in hex and its signature. */
export interface TreeRow {
  path: string;
  prev: string | null;
  hex: string;
  sigId: number | null;
}

/** The basis of a changed file: its path, size and signature (id and block size), and its chunk list in the first base tree. */
export interface Basis {
  path: string;
  size: number;
  sigId: number;
  blockSize: number;
  chunks: Buffer;
}

/** One chunk list entry. */
export function chunkEntry(id: Buffer, length: number): Buffer {
  const e = Buffer.allocUnsafe(CHUNK_ENTRY);
  id.copy(e, 0, 0, 32);
  e.writeUInt32BE(length, 32);
  return e;
}

const MAX_PIECE = 0xffffffff;

/** The chunk list entries of a hole of `length` bytes. */
export function holeEntry(length: number): Buffer {
  const parts: Buffer[] = [];
  for (let left = length; left > 0; left -= MAX_PIECE) parts.push(chunkEntry(HOLE_ID, Math.min(left, MAX_PIECE)));
  return Buffer.concat(parts);
}

const HOLE_HEX = '0'.repeat(64);

/** The refs of a chunk list in lower-case hex (a TreeRow's), in order: held refs, and holes. */
export function heldRefs(hex: string): ChunkRef[] {
  const refs: ChunkRef[] = [];
  for (let at = 0; at + 2 * CHUNK_ENTRY <= hex.length; at += 2 * CHUNK_ENTRY) {
    const id = hex.slice(at, at + 64);
    const len = parseInt(hex.slice(at + 64, at + 72), 16);
    if (id === HOLE_HEX) {
      const last = refs[refs.length - 1];
      if (last?.length === 1) last[0] += len;
      else refs.push([len]);
    } else refs.push([id, len]);
  }
  return refs;
}

/**
 * Looks files up in the reference tree (stat cache) and in the base trees
 * (bases of deltas). Point lookups by (shipment, path), so memory does not
 * grow with the tree; the reference tree is read ahead a window at a time
 * (ReferenceCursor), which spares most of those queries.
 */
export class TreeLookup {
  private readonly q: TreeQueries;
  private readonly cursor: ReferenceCursor | null;

  /** `reference`: the reference tree, or null for no stat cache. `bases`: the base trees, none for no deltas. */
  constructor(
    catalog: Catalog,
    /** The reference tree (stat cache), or null. */
    readonly reference: string | null,
    private readonly bases: string[],
  ) {
    this.q = new TreeQueries(catalog);
    this.cursor = reference ? new ReferenceCursor(this.q, reference) : null;
  }

  /** The newest sealed shipment of the dataset whose tree the catalog holds, or null. */
  static referenceTree(catalog: Catalog, datasetId: string): string | null {
    return newestTree(catalog, datasetId) ?? null;
  }

  /**
   * The reference tree's row of `e` when its path, size, mode, mtime, ctime
   * and inode are unchanged; else null. With the mode too, the row is the
   * very row this shipment's tree needs for the file (ShipmentRows.addHeldFile).
   */
  unchanged(e: SourceEntry): TreeRow | null {
    if (!this.cursor) return null;
    const found = this.cursor.find(toField(e.path));
    if (!found || found.row.stat !== treeStatKey(e.size, e.mode, e.mtimeNs, e.ctimeNs, e.ino)) return null;
    const r = found.row;
    return { path: r.path, prev: found.prev, hex: r.hex, sigId: r.sigId };
  }

  /** The basis for a new version of the file at `path`: the same file, with a signature, in every base tree; else null. */
  basis(path: string): Basis | null {
    if (this.bases.length === 0) return null;
    let found: { size: number; sigId: number; chunks: Buffer } | null = null;
    for (const b of this.bases) {
      const r = this.q.fileOf(b, toField(path));
      if (!r || r.sigId === null || (found && found.sigId !== r.sigId)) return null;
      found ??= { size: r.size, sigId: r.sigId, chunks: r.chunks };
    }
    const blockSize = this.q.sigBlockSize(found!.sigId);
    return blockSize === undefined ? null : { path, ...found!, blockSize };
  }
}
