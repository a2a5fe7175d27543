import type { Catalog } from '../catalog/catalog.js';
import { inEveryTree, ListedChunks } from '../catalog/trees.js';

/**
 * The chunks every recipient already holds, which a shipment names by held
 * refs instead of carrying (FORMAT.md §9.5). Lookups go to SQLite, so
 * memory does not grow with the dataset.
 */
export interface HeldSet {
  /** False when the set is empty for sure (a self-contained shipment): nothing is held, no lookup is made. */
  readonly any: boolean;
  /** Whether chunk `id` is held; `sha` (the SHA-256 of its bytes) is used by sets of plain digests. */
  has(id: Buffer, sha?: Buffer): boolean;
  /** The one tree whose chunks are exactly the held set, when there is one: every chunk of a file of that tree is held. */
  readonly tree?: string;
}

/** Nothing is held: a self-contained shipment. */
export const NOTHING_HELD: HeldSet = { any: false, has: () => false };

/** The chunks present in every one of the base trees (tree_chunks). */
export function heldInTrees(catalog: Catalog, bases: string[]): HeldSet {
  if (bases.length === 0) return NOTHING_HELD;
  return { any: true, has: inEveryTree(catalog, bases), ...(bases.length === 1 ? { tree: bases[0]! } : {}) };
}

/**
 * The chunks listed in a signature or request file (sigfile), kept in a
 * temporary table of this connection while the shipment is packed. Ids are
 * the dataset's keyed chunk ids (`hmac`), or plain SHA-256 digests of the
 * chunks' bytes (`sha256`), in which case callers pass each chunk's digest.
 */
export class ListedHeld implements HeldSet {
  readonly any = true;
  private readonly listed: ListedChunks;

  constructor(
    catalog: Catalog,
    readonly ids: 'hmac' | 'sha256',
  ) {
    this.listed = new ListedChunks(catalog);
  }

  /** Adds one listed id (32 bytes). */
  add(id: Buffer): void {
    this.listed.add(id);
  }

  has(id: Buffer, sha?: Buffer): boolean {
    const key = this.ids === 'sha256' ? sha : id;
    return key !== undefined && this.listed.has(key);
  }

  /** Drops the table. */
  close(): void {
    this.listed.close();
  }
}
