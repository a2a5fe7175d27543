/**
 * The engine API's types for packing a source onto drives (Engine.pack).
 * Types only.
 */
import type { S3Options } from './s3.js';

export interface PackOptions {
  /** A folder, or `s3://BUCKET/PREFIX` (the objects under it, reached as `s3` says). */
  source: string;
  s3?: S3Options;
  /** Drive roots; the shipment goes under DRIVE/brickpost/. Several make a drive set. */
  drives: string[];
  /** Parity drives of a set, m (FORMAT.md §drive-sets). Default 1 for three or more drives, else 0. */
  parity?: number;
  /** Recovery data on each drive, percent of its payload (integer 0–100, default 2). */
  recovery?: number;
  /** Bytes each drive may take at most (besides its free space). */
  driveSize?: number;
  /** Continue the interrupted shipment of this dataset instead of starting one. */
  resume?: boolean;
  /** age recipients (`age1…`). */
  recipients: string[];
  /** Do not add the publisher's own recipient. */
  noSelf?: boolean;
  /** Dataset name; defaults to the source folder's base name. */
  dataset?: string;
  label?: string;
  /** zstd level, default 3. */
  level?: number;
  /** A self-contained shipment (no bases), even when the recipients hold an earlier one. */
  full?: boolean;
  /** Read every file, even those the stat cache says are unchanged. */
  rehash?: boolean;
  /** Build against this signature or request file (a subscriber's): its chunks are held, there are no bases. */
  against?: string;
  /** Seconds after packing at which subscribers refuse the shipment (signed Brickpost-Expires); default never. */
  expiresIn?: number;
  /** Patterns of entries to leave out (README "What a shipment carries": restic's and rsync's rules). */
  exclude?: string[];
  /** Files of such patterns, one per line (# comments and blank lines ignored). */
  excludeFrom?: string[];
  /** Leave out folders tagged as caches (CACHEDIR.TAG). */
  excludeCaches?: boolean;
  /** Fail (SOURCE_INCOMPLETE) when anything of the source was not shipped, other than what was excluded on purpose. */
  strict?: boolean;
  /** Ship files that kept changing while read (re-read 3 times) as last read, marked `changing` in the manifest, instead of failing with SOURCE_CHANGING. */
  allowChanging?: boolean;
  /** Pack from a read-only snapshot of the source taken for this pack and removed after it (btrfs only; pack/snapshot.ts). */
  snapshot?: boolean;
  /** Refuse (UNSAFE_PATH) names some systems cannot hold: names differing only in case or Unicode form, Windows' reserved names and characters, names that are not UTF-8 or not NFC. */
  portable?: boolean;
}

/** What a shipment carries of a source tree, and what it left out. */
export interface PackEntryCounts {
  files: number;
  dirs: number;
  /** Symbolic links. */
  links: number;
  /** Further names of files with several hard links (each shipped once). */
  hardLinks: number;
  /** FIFOs, sockets and devices (recorded; created at ingest only on request). */
  specials: number;
  /** Files with holes, and the bytes of their holes (neither read nor stored). */
  sparseFiles: number;
  holeBytes: number;
  /** Entries with extended attributes, with ACLs. */
  withXattrs: number;
  withAcls: number;
  /** Entries left out on purpose (--exclude, --exclude-from) and cache folders (--exclude-caches). */
  excluded: number;
  /** Entries not shipped for another reason, by reason (`vanished while scanning`, `cannot be read (permission denied)`…). */
  notShipped: Record<string, number>;
  /** Files that kept changing while read, shipped as last read and marked (pack --allow-changing). */
  changing: number;
}

export interface PackSummary {
  shipmentId: string;
  dataset: string;
  datasetId: string;
  seq: number;
  parent: string | null;
  files: number;
  dirs: number;
  bytesIn: number;
  bytesOnDrive: number;
  chunks: number;
  chunksDeduplicated: number;
  packs: number;
  recipients: string[];
  /** The bag folder (of the first drive, for a set). */
  path: string;
  /** Every drive's bag folder, in set order; data drives first. */
  paths: string[];
  /** Parity drives of the set (0 for one drive). */
  parity: number;
  /** Recovery percent on each drive. */
  recovery: number;
  /** The run continued an interrupted one; packs it kept were not rewritten. */
  packsKept: number;
  seconds: number;
  warnings: number;
  /** Self-contained: no bases and no `against`. */
  full: boolean;
  /** The shipments this one is relative to (FORMAT.md §10.4), oldest first. */
  bases: Array<{ shipmentId: string; seq: number }>;
  /** SHA-256 of the signature or request file it was built against, or null. */
  against: string | null;
  /** Files read from the source, and their bytes (bytesIn counts every file's bytes, read or not). */
  filesRead: number;
  bytesRead: number;
  /** Files the stat cache found unchanged, shipped as held refs without being read. */
  filesUnchanged: number;
  /** Held refs: chunks the recipients already hold, not on the drive. */
  chunksHeld: number;
  bytesHeld: number;
  /** Chunks carried as deltas against their file's basis, and their bytes (as chunks). */
  chunksDelta: number;
  bytesDelta: number;
  /** Bytes of the delta frames on the drive (before encryption). */
  deltaFrameBytes: number;
  /** Why the shipment is self-contained, or how recipients at different states were served. */
  notes: string[];
  /** What the shipment carries of the source, and what it left out. */
  entries: PackEntryCounts;
}
