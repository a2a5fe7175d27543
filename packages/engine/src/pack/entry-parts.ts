// The parts of EntryPacker (entries.ts): what it is given, and the items and file states its queue holds.
import type { Catalog } from '../catalog/catalog.js';
import type { ChunkRef } from '@brickpost/manifest';
import type { ChunkPipeline } from '../chunk/index.js';
import type { Progress } from '../io/progress.js';
import type { SourceEntry } from '../scan/index.js';
import type { ShipmentRows } from './catalog-rows.js';
import type { ManifestOut } from './manifest-out.js';
import type { ChunkStore, ReadChunk } from './store.js';
import type { LargeFeed } from './large-feed.js';
import type { Unsettled } from './settle.js';
import type { Basis, TreeLookup, TreeRow } from './tree.js';

/**
 * Files from this size on get a signature when read, so a later shipment can
 * send their changes as deltas. Below it a changed file costs at most its own
 * frame. Measured on the 300 MiB benchmark dataset after make_dataset.py
 * --mutate 5 (bytes of the incremental shipment on the drive): 9.31 MB from
 * 16 KiB or 64 KiB on, 9.61 MB from 1 MiB on (appends to files between lose
 * their deltas), 30.4 MB with no signatures; the 1 354 files between 16 and
 * 64 KiB (46 MiB) only cost signing time, as small files tend to be rewritten
 * whole.
 */
export const SIGNATURE_MIN = 64 * 1024;

/** A file on its way into the manifest. */
export interface FileState {
  entry: SourceEntry;
  refs: ChunkRef[];
  emitted: boolean;
  basis: Basis | null;
  /** Chunk list entries so far (FORMAT of tree_files.chunks). */
  list: Buffer[];
  signature: Buffer | null;
  /** How the last read found the file changed (cut short or grown), if it did. */
  readChange?: string | undefined;
  /** It did not settle (settle.ts) and is shipped as last read: its record says `changing`. */
  changing?: boolean;
  /** Ids of its basis's chunks every recipient holds: read again, they need no frame (EncodeFileOptions.known). */
  known?: Buffer;
}

export type Item =
  | { kind: 'dir'; entry: SourceEntry }
  | { kind: 'entry'; entry: SourceEntry }
  | { kind: 'chunk'; file: FileState; length: number; job: Promise<ReadChunk> }
  | { kind: 'hole'; file: FileState; length: number }
  | { kind: 'whole'; file: FileState; job: Promise<WholeRead> }
  | { kind: 'held'; file: FileState; row: TreeRow }
  | { kind: 'large'; file: FileState; feed: LargeFeed }
  | { kind: 'end'; file: FileState };

/** A whole file read at once, its chunks encoded. */
export interface WholeRead {
  chunks: ReadChunk[];
  changed?: string;
  signature?: Buffer;
}

/** What EntryPacker needs from the shipment being packed. */
export interface EntryPackerParts {
  catalog: Catalog;
  manifest: ManifestOut;
  store: ChunkStore;
  rows: ShipmentRows;
  /** Stat cache and bases; a lookup with neither for a shipment that reads every file. */
  lookup: TreeLookup;
  pipeline: ChunkPipeline;
  progress: Progress;
  warn: (code: string, message: string, path?: string) => void;
  /** Compute each chunk's SHA-256 (a held set of plain digests needs it). */
  sha: boolean;
  /** A file that could not be read (gone, or permission denied): left out of the shipment, with its reason. */
  notShipped: (path: string, reason: string) => void;
  /** A file that did not settle after MAX_READS reads (settle.ts). */
  unsettled: (u: Unsettled) => void;
  /** Ship such a file as last read, marked `changing`, instead of only reporting it (pack --allow-changing). */
  allowChanging: boolean;
  /** Where the bytes of a file are not at its `abs` (object storage): a local copy to read, and its removal once read. */
  fetch?: { fetch(entry: SourceEntry): Promise<string>; release(file: string): Promise<void> };
}
