/**
 * The desktop API: what the renderer may ask of the engine host. The Electron
 * preload exposes one object of this type as `window.brickpost` (one function
 * per method, no raw IPC); in a browser, `brickpost ui`'s loopback bridge
 * defines the same object over HTTP. Types only, so the renderer can import it.
 *
 * Every promise rejects with a `DesktopError`-shaped Error (name
 * 'BrickpostError', with `code`, `hint`, `exitCode`): the renderer shows the
 * message and the hint as plain sentences, never a stack. Read the fields,
 * not `instanceof Error`: in Electron the rejection is a plain object with
 * the same fields (contextBridge would copy an Error's message only).
 */
import type {
  CustodyReport,
  DestHistory,
  EventSink,
  ExtractOptions,
  ExtractSummary,
  IngestOptions,
  IngestSummary,
  ListEntry,
  PackOptions,
  PackSummary,
  PlanOptions,
  PlanResult,
  RebuildDriveOptions,
  RebuildDriveSummary,
  ReceiptSummary,
  ResumeSummary,
  PinSummary,
  S3Options,
  RollbackSummary,
  ShipmentReport,
  SubscribersReport,
  TrustedKey,
  VerifyOptions,
  VerifyReport,
  WhoAmI,
} from '@brickpost/engine/api';

/** How an API call failed, as the renderer sees it. */
export interface DesktopError extends Error {
  name: 'BrickpostError';
  /** An ERROR_CODES value (`UNTRUSTED_PUBLISHER`, `NOT_FOUND`…), or `INTERNAL`. */
  code: string;
  /** What to do next, a sentence. */
  hint?: string;
  /** The CLI exit code of the same failure. */
  exitCode: number;
  path?: string;
}

/** A drive (or a folder standing in for one) that the host found mounted. */
export interface DetectedDrive {
  /** The mount point or folder. */
  path: string;
  /** Volume label, or the folder's base name. */
  label: string;
  /** Removable media (USB, SD…) as far as the OS says. */
  removable: boolean;
  totalBytes: number | null;
  freeBytes: number | null;
  /** Shipments found under `brickpost/` on it (ids), newest first. */
  shipments: string[];
}

/** A folder's children, for the browser's folder picker. */
export interface FolderListing {
  path: string;
  parent: string | null;
  entries: Array<{ name: string; dir: boolean }>;
}

/** What a source folder holds, for the planner and the capacity check. */
export interface SourceInfo {
  path: string;
  files: number;
  dirs: number;
  bytes: number;
}

/**
 * One folder of a shipment, as the browse view shows it: its direct
 * children, at most a fixed number of them (the rest are counted).
 */
export interface ShipmentFolder {
  /** The folder listed: '' for the shipment's root, else its path as ListEntry paths are written. */
  folder: string;
  /** Its direct children in manifest order (by name), at most `limit`. */
  entries: ListEntry[];
  /** How many children are listed at most. */
  limit: number;
  /** Children past the limit: counted, not listed. */
  more: number;
  /** A sentence saying what was not listed and how to take it, or null when every child is listed. */
  note: string | null;
}

/** Receives a long job's events: the engine's EventSink, the same events `--json` prints. */
export type JobListener = EventSink;

export interface DesktopApi {
  /** 'electron' or 'browser': where the renderer runs (decides pickers and downloads). */
  readonly host: 'electron' | 'browser';

  /** This home's identity, or null when there is none yet. */
  whoami(): Promise<WhoAmI | null>;
  keygen(opts: { name: string }): Promise<WhoAmI>;
  trustList(): Promise<TrustedKey[]>;
  /**
   * Trusts a key, or updates a trusted one's name or recipient. `key`: a
   * minisign public key (`RW…` line or the .pub file's text), or contact
   * text also holding the party's `age1…` recipient (what `brickpost whoami`
   * prints); `recipient`: their age recipient, when not in `key`.
   */
  trustAdd(opts: { key: string; name?: string; recipient?: string }): Promise<TrustedKey>;
  trustRemove(opts: { nameOrKeyId: string }): Promise<TrustedKey>;

  /** Mounted removable drives (Linux, macOS, Windows), plus folders named in $BRICKPOST_DRIVES. */
  drives(): Promise<DetectedDrive[]>;
  /** Electron: a native folder dialog; browser: null (the renderer shows its own picker). */
  chooseFolder(opts: { title: string }): Promise<string | null>;
  listFolder(opts: { path?: string }): Promise<FolderListing>;
  sourceInfo(opts: { path: string }): Promise<SourceInfo>;
  plan(opts: PlanOptions): Promise<PlanResult>;
  /**
   * The direct children of one folder of a shipment (`folder` '' for its
   * root), read from its manifest as it streams: memory stays bounded
   * whatever the shipment holds. Needs this home's key and a trusted publisher.
   */
  shipmentFolder(opts: { drive: string; shipment?: string; folder: string }): Promise<ShipmentFolder>;

  /**
   * Long jobs. `jobId` is chosen by the renderer (unique per call); events
   * arrive on `onEvent` until the promise settles; `cancel(jobId)` stops the
   * job (it then rejects with CANCELLED).
   */
  pack(jobId: string, opts: PackOptions, onEvent: JobListener): Promise<PackSummary>;
  verify(jobId: string, opts: VerifyOptions, onEvent: JobListener): Promise<VerifyReport>;
  ingest(jobId: string, opts: IngestOptions, onEvent: JobListener): Promise<IngestSummary>;
  /** Takes the named files and folders of a shipment into a folder, without ingesting it. */
  extract(jobId: string, opts: ExtractOptions, onEvent: JobListener): Promise<ExtractSummary>;
  /** Writes a lost drive of a set onto a new, empty drive from the others (no decryption key needed). */
  rebuildDrive(jobId: string, opts: RebuildDriveOptions, onEvent: JobListener): Promise<RebuildDriveSummary>;
  cancel(jobId: string): Promise<void>;

  /** Writes a signed receipt of DEST to `out` (default: the home's receipts folder) and returns it with its text. */
  receipt(opts: { dest: string; out?: string; deep?: boolean }): Promise<ReceiptSummary & { text: string }>;
  /** The shipments applied to DEST, a folder or `s3://BUCKET/PREFIX` (reached as `s3` says). */
  history(opts: { dest: string; s3?: S3Options }): Promise<DestHistory>;
  /** Returns DEST, a folder or `s3://BUCKET/PREFIX` (reached as `s3` says), to how it was after an earlier shipment (`to`: id or seq). */
  rollback(opts: { dest: string; to: string; s3?: S3Options }): Promise<RollbackSummary>;
  /** Names a point of DEST's history (a shipment id or seq) so pruning keeps rollback to it. */
  pin(opts: { dest: string; shipment: string; name: string }): Promise<PinSummary>;
  /** Removes a pin (its name, or a seq), then prunes what is no longer kept. */
  unpin(opts: { dest: string; pin: string }): Promise<PinSummary>;
  /** Finishes an interrupted ingest or rollback of DEST, a folder or a bucket prefix (DestHistory.inProgress). */
  resume(opts: { dest: string; s3?: S3Options }): Promise<ResumeSummary>;

  /** The verification report of a drive or destination: its data and its standalone HTML. */
  report(opts: { target: string; shipment?: string; deep?: boolean }): Promise<{ report: ShipmentReport; html: string }>;
  /** A printable label per drive of a shipment (standalone HTML with a QR code of the shipment id). */
  label(opts: { drive: string; shipment?: string }): Promise<{ html: string }>;
  custody(opts: { drive: string; shipment?: string }): Promise<CustodyReport>;
  /**
   * The publisher's subscribers and their lag (`brickpost subscribers`):
   * `maxLag` as --max-lag values (`3`, `30d`), `now` an ISO 8601 time.
   */
  subscribers(opts: { maxLag?: string[]; now?: string; dataset?: string }): Promise<SubscribersReport>;
}
