import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type {
  CatOptions,
  DestHistory,
  DestStatus,
  DriveShipment,
  EventSink,
  ExtractOptions,
  ExtractSummary,
  IngestOptions,
  IngestSummary,
  ListEntry,
  PackOptions,
  PackSummary,
  ResumeSummary,
  RollbackOptions,
  RollbackSummary,
  ShipmentChoice,
  TrustedKey,
  VerifyOptions,
  VerifyReport,
  WhoAmI,
} from './api/index.js';
import { Catalog } from './catalog/index.js';
import type { CatalogRecoverOptions, RecoverSummary } from './api/recover.js';
import { Context } from './context.js';
import type { ExtractAtOptions, ExtractAtSummary, PinOptions, PinSummary, PruneOptions, PruneSummary, UnpinOptions } from './api/index.js';
import { isS3Url, noS3At } from './s3/url.js';
import { commandLine } from './io/command-line.js';
import { toEnvironmentError } from './io/errors.js';
import { addTrust, removeTrust } from './keys/index.js';
import { keygen, trustList, whoami } from './keys/own.js';
import type { RebuildDriveOptions, RebuildDriveSummary, RepairOptions, RepairSummary, S3Options } from './api/index.js';
import type { ReceiptImportSummary, ReceiptOptions, ReceiptSummary, SignatureOptions, SignatureSummary } from './api/index.js';
import type { CustodyOptions, CustodyReport, WipeOptions, WipeSummary } from './api/index.js';
import type { FolderListing, FolderOptions } from './api/index.js';
import type { PlanOptions, PlanResult } from './api/index.js';
import { computePlan, measuredDriveSpeed } from './plan/index.js';
import type { LabelOptions, LabelSheet, ReportOptions, ShipmentReport } from './api/index.js';
import type { DriveMarkOptions, DriveMarkSummary, SubscribersOptions, SubscribersReport } from './api/index.js';
import { subscribersReport } from './catalog/lag.js';

/** The per-user home folder: XDG config on Linux, Application Support on macOS, APPDATA on Windows. */
export function defaultHome(): string {
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'brickpost');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'brickpost');
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'brickpost');
}

/** Brings the catalog's record of DEST's shipments up to date (ingest/record.ts), loading that code only now. */
async function reconcile(ctx: Context, dest: string): Promise<void> {
  await (await import('./ingest/record.js')).reconcileDest(ctx, dest);
}

/**
 * The engine: one object per home, with one method per operation. Both the
 * CLI and the desktop app use only this. Each operation's code is loaded when
 * it is first called, so a command starts with the modules it uses.
 */
export class Engine {
  private constructor(private readonly ctx: Context) {}

  /**
   * Opens a home (`home`, else $BRICKPOST_HOME, else defaultHome()), creating
   * it. With `create: false`, a home without a catalog is left as it is (not
   * even created) and the engine works on an empty catalog in memory: what
   * read-only commands (verify, report) would record there is dropped.
   * @throws BrickpostError PERMISSION, IO, NO_SPACE, LOCKED, UNSUPPORTED_VERSION, FOREIGN_DATABASE, DATABASE_DAMAGED
   */
  static open(opts: { home?: string; create?: boolean } = {}): Engine {
    const home = resolve(opts.home ?? (process.env.BRICKPOST_HOME || defaultHome()));
    const file = join(home, 'catalog.sqlite');
    if (opts.create === false && !existsSync(file)) return new Engine(new Context(home, new Catalog(':memory:')));
    try {
      mkdirSync(home, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw toEnvironmentError(e, 'cannot create the home folder');
    }
    // A damaged catalog's hint repeats --home when it was given: the command then works as printed.
    const recover = commandLine(['catalog', 'recover', ...(opts.home !== undefined ? ['--home', home] : [])]);
    return new Engine(new Context(home, new Catalog(file, { recover })));
  }

  /**
   * Recovers a home's damaged catalog (`opts.home`, else as open finds it):
   * sets the damaged file aside, keeps what can still be read, rebuilds what
   * the key files, the destinations and the drives can give, and says what
   * was kept, rebuilt and lost (recover/recover.ts). Needs no open engine.
   * @throws BrickpostError NOT_FOUND, LOCKED, FOREIGN_DATABASE, PERMISSION, NO_SPACE, IO
   */
  static async recoverCatalog(opts: CatalogRecoverOptions = {}): Promise<RecoverSummary> {
    const home = resolve(opts.home ?? (process.env.BRICKPOST_HOME || defaultHome()));
    const { recoverCatalog } = await import('./recover/index.js');
    return recoverCatalog(home, opts, opts.home !== undefined ? ['--home', home] : []);
  }

  /**
   * Recovers a destination's damaged journal (ingest/journal-recover.ts).
   * @throws BrickpostError NOT_FOUND, LOCKED, FOREIGN_DATABASE, PERMISSION, NO_SPACE, IO
   */
  static async recoverJournal(dest: string, opts: { force?: boolean } = {}): Promise<RecoverSummary> {
    return (await import('./ingest/journal-recover.js')).recoverJournal(dest, opts);
  }

  /** The home folder this engine works in, as an absolute path. */
  get home(): string {
    return this.ctx.home;
  }

  /**
   * Syncs and closes the catalog. A failed sync is thrown (the catalog is
   * closed anyway): what the command recorded may not be on disk.
   * @throws BrickpostError IO, NO_SPACE, PERMISSION
   */
  close(): void {
    this.ctx.catalog.close();
  }

  /** Creates this home's identity and trusts its own key. @throws IDENTITY_EXISTS unless force */
  keygen(opts: { name?: string; force?: boolean } = {}): WhoAmI {
    return keygen(this.ctx, opts);
  }

  /** This home's identity. @throws NO_IDENTITY */
  whoami(): WhoAmI {
    return whoami(this.ctx);
  }

  /**
   * Trusts a key, or updates the name or recipient of one trusted already.
   * `key`: an `RW…` line, a .pub file's text, or contact text holding the
   * key and an `age1…` recipient (what `brickpost whoami` prints).
   * @throws BAD_KEY (also a malformed recipient), USAGE (name not allowed or taken)
   */
  trustAdd(key: string, name?: string, recipient?: string): TrustedKey {
    return addTrust(this.ctx.catalog, key, { name, recipient });
  }

  /** The trusted keys, own key first; the own entry carries this home's recipient. */
  trustList(): TrustedKey[] {
    return trustList(this.ctx);
  }

  /**
   * Stops trusting a key, named by its trust name or key id; returns the
   * entry removed.
   * @throws BrickpostError NOT_FOUND, USAGE (this home's own key)
   */
  trustRemove(nameOrKeyId: string): TrustedKey {
    return removeTrust(this.ctx.catalog, nameOrKeyId);
  }

  /**
   * Packs a folder into a signed, encrypted shipment on one drive or a set
   * of drives, incrementally when the dataset was shipped before
   * (pack/pack.ts).
   * @throws BrickpostError USAGE, NOT_FOUND, NO_SPACE, PERMISSION, IO, UNSAFE_ENTRY, CANCELLED, DATASET_MISMATCH, NO_IDENTITY, LOCKED (another pack in this home)
   */
  async pack(opts: PackOptions, onEvent: EventSink, signal?: AbortSignal): Promise<PackSummary> {
    const { pack } = await import('./pack/pack.js');
    if (opts.snapshot) return (await import('./pack/snapshot.js')).packFromSnapshot(opts, onEvent, (o) => pack(this.ctx, o, onEvent, signal));
    return pack(this.ctx, opts, onEvent, signal);
  }

  /**
   * Verifies a shipment on a drive: the signature, tag files and payload
   * hashes, and with `deep` every chunk decrypted and checked. Problems of
   * the shipment are in the report, not thrown.
   * @throws BrickpostError NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, NO_IDENTITY (deep), IO, NO_SPACE, PERMISSION, CANCELLED
   */
  async verify(opts: VerifyOptions, onEvent: EventSink, signal?: AbortSignal): Promise<VerifyReport> {
    return (await import('./verify/verify.js')).verify(this.ctx, opts, onEvent, signal);
  }

  /**
   * Applies a shipment from a drive to a destination folder, checked before
   * anything changes and committed through a journal (ingest/ingest.ts).
   * @throws BrickpostError authenticity, integrity, UNSAFE_ENTRY, CHAIN_REPLAY, CHAIN_GAP, CHAIN_FORK, BASIS_MISSING, DATASET_MISMATCH, NO_IDENTITY, LOCKED, USAGE, CANCELLED, IO, NO_SPACE, PERMISSION
   */
  async ingest(opts: IngestOptions, onEvent: EventSink, signal?: AbortSignal): Promise<IngestSummary> {
    // An object storage destination (s3/ingest.ts) keeps its state beside its objects.
    // The S3 client is loaded only for a bucket: it is most of a command's start-up time otherwise.
    if (isS3Url(opts.dest)) return (await import('./s3/ingest.js')).s3Ingest(this.ctx, opts, onEvent, signal);
    return (await import('./ingest/ingest.js')).ingest(this.ctx, opts, onEvent, signal);
  }

  /**
   * The shipments on a drive, oldest first, as their bag-info describes them
   * (not verified: for listing and choosing).
   * @throws BrickpostError NOT_FOUND, NOT_A_DRIVE
   */
  async shipments(drive: string): Promise<DriveShipment[]> {
    return (await import('./drive/layout.js')).shipmentsOn(drive);
  }

  /**
   * The shipment of a drive that `ingest` applies next to `dest` when the
   * drive holds several (null when it holds one or none).
   * @throws BrickpostError AMBIGUOUS_SHIPMENT (no rule picks one), NOT_FOUND, NOT_A_DRIVE
   */
  async nextShipment(drive: string, dest: string): Promise<ShipmentChoice | null> {
    // Object storage: the shipment is named with --shipment when a drive holds several.
    if (isS3Url(dest)) return null;
    return (await import('./ingest/choose.js')).chooseShipment(drive, dest);
  }

  /**
   * Takes the named files and folders of a shipment (all when none) into a
   * folder, without a destination state; reads only their chunks.
   * @throws BrickpostError NOT_FOUND, USAGE, BASIS_MISSING, NO_SPACE, and what verifying the drive throws
   */
  async extract(opts: ExtractOptions, onEvent: EventSink, signal?: AbortSignal): Promise<ExtractSummary> {
    if (isS3Url(opts.to)) return (await import('./s3/extract.js')).s3Extract(this.ctx, opts, onEvent, signal);
    return (await import('./extract/index.js')).extract(this.ctx, opts, onEvent, signal);
  }

  /**
   * Writes one file of a shipment through `write` (holes as zeros).
   * @throws BrickpostError NOT_FOUND, USAGE (not a file), BASIS_MISSING, and what verifying the drive throws
   */
  async cat(
    opts: CatOptions,
    write: (b: Buffer) => Promise<void>,
    onEvent: EventSink = () => undefined,
    signal?: AbortSignal,
  ): Promise<{ shipmentId: string; path: string; bytes: number }> {
    return (await import('./extract/index.js')).cat(this.ctx, opts, write, onEvent, signal);
  }

  /**
   * A shipment's entries in manifest order, streamed; needs this home's age
   * identity and a shipment signed by a trusted publisher.
   * @throws BrickpostError NO_IDENTITY, NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, authenticity, integrity
   */
  async *list(opts: { drive: string; shipment?: string }): AsyncIterable<ListEntry> {
    yield* (await import('./verify/list.js')).list(this.ctx, opts);
  }

  /**
   * One folder of a shipment: its first `limit` children in manifest order
   * and their count, from the shipment's browse index in this home's cache
   * (built by the first call for that manifest: one pass as list makes).
   * The shipment is checked as list checks it, every call.
   * @throws BrickpostError USAGE (not a folder, '..'), NOT_FOUND, and what list throws; NO_SPACE, PERMISSION, IO for the cache
   */
  async listFolder(opts: FolderOptions): Promise<FolderListing> {
    return (await import('./browse/list-folder.js')).listFolder(this.ctx, opts);
  }

  /**
   * Repairs a drive in place from its own recovery data; only an authentic
   * bag's files are touched, and each repaired file must match its signed
   * SHA-256 again (drive/repair.ts).
   * @throws BrickpostError authenticity, USAGE (no recovery data), NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, IO, NO_SPACE, PERMISSION, CANCELLED
   */
  async repair(opts: RepairOptions, onEvent: EventSink, signal?: AbortSignal): Promise<RepairSummary> {
    return (await import('./drive/repair.js')).repair(this.ctx, opts, onEvent, signal);
  }

  /**
   * Rebuilds a lost drive of a set onto a new drive from any k others,
   * without decryption keys; the new drive is checked as verify checks one
   * before it takes its place (drive/rebuild-drive.ts).
   * @throws BrickpostError USAGE, SET_INCOMPLETE, SET_MISMATCH, FIXITY_MISMATCH, FILE_MISSING, authenticity, NO_SPACE, IO, CANCELLED
   */
  async rebuildDrive(opts: RebuildDriveOptions, onEvent: EventSink, signal?: AbortSignal): Promise<RebuildDriveSummary> {
    return (await import('./rebuild/rebuild-drive.js')).rebuildDrive(this.ctx, opts, onEvent, signal);
  }

  /**
   * What a destination holds and is doing: its shipment, the brickpost
   * working on it, an ingest or rollback under way or interrupted. Reads
   * only. @throws NOT_FOUND, UNSAFE_ENTRY, PERMISSION, IO
   */
  async status(dest: string, s3?: S3Options): Promise<DestStatus> {
    if (isS3Url(dest)) return (await import('./s3/rollback.js')).s3Status(dest, s3);
    return (await import('./ingest/status.js')).destStatus(dest);
  }

  /** Finishes an interrupted ingest or rollback of a destination. @throws NOT_FOUND, LOCKED, UNFINISHED, PERMISSION, IO */
  async resume(dest: string, onEvent: EventSink, s3?: S3Options): Promise<ResumeSummary> {
    if (isS3Url(dest)) return (await import('./s3/rollback.js')).s3Resume(this.ctx, dest, s3, onEvent);
    const identities = this.ctx.identity().ageIdentities;
    return (await import('./ingest/settle.js')).resume(identities, dest, onEvent);
  }

  /**
   * Returns a destination to the tree it had after an earlier shipment,
   * undoing the shipments applied since, newest first (ingest/rollback.ts).
   * @throws BrickpostError NOT_FOUND, USAGE, LOCKED, UNFINISHED, PERMISSION, IO
   */
  async rollback(opts: RollbackOptions, onEvent: EventSink): Promise<RollbackSummary> {
    if (isS3Url(opts.dest)) return (await import('./s3/rollback.js')).s3Rollback(this.ctx, opts, onEvent);
    await reconcile(this.ctx, opts.dest);
    return (await import('./ingest/rollback.js')).rollback(this.ctx, opts, onEvent);
  }

  /** Pins an applied shipment of a destination under a name (ingest/undo-points.ts). @throws NOT_FOUND, USAGE, LOCKED, PERMISSION, IO */
  async pin(opts: PinOptions, onEvent: EventSink = () => undefined): Promise<PinSummary> {
    return (await import('./ingest/undo-points.js')).pin(this.ctx, opts, onEvent);
  }

  /** Removes a pin, then prunes what is no longer kept. @throws NOT_FOUND, LOCKED, PERMISSION, IO */
  async unpin(opts: UnpinOptions, onEvent: EventSink = () => undefined): Promise<PinSummary> {
    return (await import('./ingest/undo-points.js')).unpin(this.ctx, opts, onEvent);
  }

  /** Sets a destination's retention and removes the undo data it no longer keeps. @throws USAGE (a pin would be lost), NOT_FOUND, LOCKED, PERMISSION, IO */
  async prune(opts: PruneOptions, onEvent: EventSink = () => undefined): Promise<PruneSummary> {
    return (await import('./ingest/undo-points.js')).prune(this.ctx, opts, onEvent);
  }

  /** Takes files out of a destination as they were after an applied shipment (ingest/extract-at.ts). @throws NOT_FOUND, USAGE, UNSAFE_ENTRY, LOCKED, CHUNK_MISMATCH, PERMISSION, IO */
  async extractAt(opts: ExtractAtOptions, onEvent: EventSink = () => undefined): Promise<ExtractAtSummary> {
    if (isS3Url(opts.dest) || isS3Url(opts.to)) throw noS3At(opts.at);
    return (await import('./ingest/extract-at.js')).extractAt(this.ctx, opts, onEvent);
  }

  /**
   * The shipments applied to a destination (from DEST's state; the catalog's
   * record of them is brought up to date on the way). @throws NOT_FOUND
   */
  async history(dest: string, s3?: S3Options): Promise<DestHistory> {
    if (isS3Url(dest)) return (await import('./s3/history.js')).s3History(dest, s3);
    await reconcile(this.ctx, dest);
    return (await import('./ingest/history.js')).history(dest, this.ctx.catalog);
  }

  /**
   * Writes a signed signature file of a folder (any folder; a destination's
   * also names its dataset and last shipment) for the publisher.
   * @throws NOT_FOUND, USAGE, NO_IDENTITY, LOCKED, PERMISSION, IO, CANCELLED
   */
  async signature(opts: SignatureOptions, onEvent: EventSink, signal?: AbortSignal): Promise<SignatureSummary> {
    await reconcile(this.ctx, opts.dest);
    return (await import('./ingest/describe.js')).writeSignature(this.ctx, opts, onEvent, signal);
  }

  /**
   * Checks a destination against its current shipment and writes a signed
   * receipt of what it holds (ok: false when the check found problems).
   * @throws NOT_FOUND, NO_IDENTITY, LOCKED, NO_MATCHING_KEY, PERMISSION, IO, CANCELLED
   */
  async receipt(opts: ReceiptOptions, onEvent: EventSink = () => undefined, signal?: AbortSignal): Promise<ReceiptSummary> {
    await reconcile(this.ctx, opts.dest);
    return (await import('./receipt/index.js')).writeReceipt(this.ctx, opts, onEvent, signal);
  }

  /**
   * The verification report of a drive (the shipment on it and its set's
   * drives) or of a destination: a `brickpost-report/v1` document with a
   * verdict, per-file problems, timings and the custody log. Problems of
   * the drive are in the report, not thrown.
   * @throws BrickpostError NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, NO_IDENTITY, LOCKED, NO_MATCHING_KEY, CANCELLED
   */
  async report(opts: ReportOptions, onEvent: EventSink = () => undefined, signal?: AbortSignal): Promise<ShipmentReport> {
    // Loaded when used: reports and labels pull in the QR code library, which other commands need not carry.
    const { buildReport } = await import('./report/index.js');
    return buildReport(this.ctx, opts, onEvent, signal);
  }

  /**
   * Printable labels for every drive of the shipment on a drive, as one
   * standalone HTML page with a QR code of the shipment id.
   * @throws BrickpostError NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, MALFORMED, FILE_MISSING
   */
  async label(opts: LabelOptions): Promise<LabelSheet> {
    const { driveLabels } = await import('./report/index.js');
    return driveLabels(this.ctx, opts);
  }

  /**
   * Ship drives or send over the network: both times, the cross-over size and
   * a recommendation. Without a drive speed, the median of this home's recent
   * packs is used when it has measured some.
   * @throws BrickpostError USAGE (an input out of range)
   */
  plan(opts: PlanOptions): PlanResult {
    return computePlan(opts, opts.driveBytesPerSecond === undefined ? measuredDriveSpeed(this.ctx.catalog) : null);
  }

  /**
   * Records a subscriber's receipt for a dataset this home publishes.
   * @throws UNSIGNED, UNTRUSTED_PUBLISHER, SIGNATURE_INVALID, MALFORMED, DATASET_MISMATCH, NOT_FOUND
   */
  async receiptImport(file: string): Promise<ReceiptImportSummary> {
    return (await import('./receipt/index.js')).importReceipt(this.ctx, file);
  }

  /**
   * Checks the custody log of a shipment on a drive (FORMAT.md §custody):
   * every event signed by its actor and chained to the one before, the
   * publisher's events equal to those in the signed bag, and this home's
   * record of the chain (and its catalog-only events) in agreement. A broken
   * chain is reported (ok false, brokenAt, problems), not thrown.
   * @throws BrickpostError NOT_FOUND, NOT_A_DRIVE, AMBIGUOUS_SHIPMENT, USAGE
   */
  async custody(opts: CustodyOptions): Promise<CustodyReport> {
    return (await import('./custody/index.js')).custodyReport(this.ctx, opts);
  }

  /**
   * Removes a shipment's bag from a drive after this home ingested it, and
   * records a `wiped` event in the custody log left on the drive.
   * @throws BrickpostError USAGE (not ingested here, without force), NOT_FOUND, NOT_A_DRIVE, AMBIGUOUS_SHIPMENT, PERMISSION, IO
   */
  async wipe(opts: WipeOptions, onEvent: EventSink = () => undefined): Promise<WipeSummary> {
    // An ingest whose last catalog write failed counts once its destination says it committed.
    await (await import('./ingest/record.js')).reconcileAll(this.ctx);
    return (await import('./custody/index.js')).wipe(this.ctx, opts, onEvent);
  }

  /**
   * Every subscriber of the datasets this home publishes: the last shipment
   * each acknowledged, those sent since, how far behind they are
   * (shipments, bytes, days) and where each drive is; flagged past maxLag.
   * @throws BrickpostError USAGE (a bad time)
   */
  subscribers(opts: SubscribersOptions = {}): SubscribersReport {
    return subscribersReport(this.ctx.catalog, opts);
  }

  /**
   * Records that drives of a shipment this home sealed were shipped or
   * returned; a returned drive's custody log is read into the catalog.
   * @throws BrickpostError USAGE, NOT_FOUND, NOT_A_DRIVE, AMBIGUOUS_SHIPMENT, MALFORMED (a broken custody log)
   */
  async markDrive(opts: DriveMarkOptions): Promise<DriveMarkSummary> {
    return (await import('./custody/marks.js')).markDrive(this.ctx, opts);
  }
}
