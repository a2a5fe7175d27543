/**
 * The engine API's types for reading a shipment without ingesting it:
 * listing (ListEntry), extract and cat. Types only.
 */
import type { IngestOptions } from './ingest.js';
import type { S3Options } from './s3.js';

/** What to take off a drive with Engine.extract; the apply options are ingest's. */
export interface ExtractOptions extends Pick<
  IngestOptions,
  'samePermissions' | 'setid' | 'owners' | 'acls' | 'noXattrs' | 'specials' | 'outsideLinks' | 'maxExpansion'
> {
  drive: string;
  /** More drives of the same drive set. */
  drives?: string[];
  shipment?: string;
  /** Paths relative to the shipment's root (a folder takes what is below it; `\xNN` for a byte of a name that is not UTF-8); none takes everything. */
  paths: string[];
  /** The folder to write into (created when absent), or s3://BUCKET/PREFIX; nothing in it is replaced. */
  to: string;
  /** Credentials and endpoint when `to` is s3://BUCKET/PREFIX. */
  s3?: S3Options;
}

export interface ExtractSummary {
  shipmentId: string;
  /** The folder written into. */
  to: string;
  files: number;
  dirs: number;
  links: number;
  hardLinks: number;
  specials: number;
  bytesWritten: number;
  /** What the shipment recorded but extract did not create or apply, by reason (as IngestSummary.notApplied). */
  notApplied: Record<string, number>;
  seconds: number;
}

/** What to write out with Engine.cat: one file of a shipment. */
export interface CatOptions extends Pick<IngestOptions, 'maxExpansion'> {
  drive: string;
  drives?: string[];
  shipment?: string;
  /** The file's path relative to the shipment's root (a hard link names its file; `\xNN` for a byte that is not UTF-8). */
  path: string;
}

export interface ListEntry {
  /** A folder, a file, a symbolic link, a further name of a hard-linked file, or a FIFO, socket or device. */
  type: 'file' | 'dir' | 'link' | 'hard' | 'special';
  /** The path; a name that is not UTF-8 holds its bytes 0x80–0xFF as U+DC80–U+DCFF (README "Names"). */
  path: string;
  size: number;
  /** Permission bits as the source had them (0 for a hard link, which shares its file's). */
  mode: number;
  /** Modification time, nanoseconds since the epoch, as a decimal string. */
  mtimeNs: string;
  /** A symbolic link's target. */
  target?: string;
  /** A hard link: the path of the file it is another name of. */
  to?: string;
  /** A special file's kind, and a device's [major, minor]. */
  kind?: 'fifo' | 'socket' | 'char' | 'block';
  dev?: [number, number];
  /** A file with holes. */
  sparse?: boolean;
  owner?: { uid: number; gid: number; user: string | null; group: string | null };
  /** The file kept changing while it was packed and was shipped as last read (pack --allow-changing). */
  changing?: boolean;
}

/** What Engine.listFolder lists: one folder of a shipment. */
export interface FolderOptions {
  drive: string;
  shipment?: string;
  /** The folder, as ListEntry paths are written ('' or '.' for the shipment's root; extra '/' are ignored). */
  folder: string;
  /** At most this many children are listed; the rest are counted. */
  limit: number;
}

/** One folder of a shipment (Engine.listFolder). */
export interface FolderListing {
  /** The folder listed: '' for the root, else its path as ListEntry paths are written. */
  folder: string;
  /** Its direct children in manifest order, at most the limit asked for. */
  entries: ListEntry[];
  /** How many direct children it has in all. */
  total: number;
  /** Whether this call built the shipment's browse index (its first look at this manifest), rather than finding it built. */
  indexBuilt: boolean;
}
