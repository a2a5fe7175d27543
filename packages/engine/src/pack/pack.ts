import { randomBytes } from 'node:crypto';
import { realpath, rm, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { readFile } from 'node:fs/promises';
import { age, BrickpostError, componentProblem, displayName, FORMAT_VERSION, isBrickpostError, MANIFEST_FORMAT, quote, windowsNameProblem } from '@brickpost/manifest';
import type { EventSink, PackEntryCounts, PackOptions, PackSummary } from '../api.js';
import { chunkKey, chunkPipeline } from '../chunk/index.js';
import type { Context } from '../context.js';
import { recordSealed } from '../custody/index.js';
import { toEnvironmentError } from '../io/errors.js';
import { takeLock } from '../io/lock.js';
import { Progress } from '../io/progress.js';
import { bagDir, newShipmentId, PART_SUFFIX } from '../drive/layout.js';
import { bytesPerDrive, CapacityError, checkCapacity, planDrives } from './drives.js';
import type { PackInfo } from './pack-writer.js';
import { checkLayout, findInterrupted, keepPacks } from './resume.js';
import { ShipmentWriter } from './set-writer.js';
import { compileExcludes, measure, parseExcludeFile, walk, type Excluder, type SourceEntry } from '../scan/index.js';
import { loadAgainst } from './against.js';
import { planChain, type ChainPlan } from './chain.js';
import { EntryPacker } from './entries.js';
import { heldInTrees, type HeldSet } from './held.js';
import { openDataset, ShipmentRows } from './catalog-rows.js';
import { finishSealing } from './sealing.js';
import { ChunkStore } from './store.js';
import { recordDriveRate } from '../plan/drive-rates.js';
import { TreeLookup } from './tree.js';

/**
 * Target plaintext size of one pack (FAT32 allows 4 GiB - 1; stay far
 * below). Tests set BRICKPOST_PACK_TARGET to get many packs from little data.
 */
export const PACK_TARGET = Number(process.env.BRICKPOST_PACK_TARGET) || 256 << 20;

/**
 * Packs a source folder into one new shipment on a drive or a drive set
 * (FORMAT.md): scan, chunk, deduplicate, compress and encrypt into packs in
 * dataset order, write the manifest alongside, then seal the bag and sign
 * it. A set spreads the packs over its data drives, written at the same
 * time, and computes the parity drives as it goes; every drive gets its
 * recovery data. The shipment is written under a `.part` name and renamed
 * only once sealed, so a drive never shows a half-written shipment as
 * complete.
 *
 * A dataset shipped before is packed incrementally (FORMAT.md §10.4): its
 * bases are the states its recipients may hold, chunks every base tree holds
 * become held refs, unchanged files (stat cache) are not even read, and
 * changed chunks of a file with a basis travel as deltas when smaller.
 * `full` makes it self-contained; `rehash` reads every file; `against`
 * builds it against a subscriber's signature or request file instead.
 * @throws BrickpostError USAGE, NOT_FOUND, NO_SPACE, PERMISSION, IO, UNSAFE_ENTRY, CANCELLED, DATASET_MISMATCH, LOCKED (another pack in this home)
 */
export async function pack(ctx: Context, opts: PackOptions & { packTarget?: number }, onEvent: EventSink, signal?: AbortSignal): Promise<PackSummary> {
  // One pack at a time per home: a second one would wait on the catalog and then fail half-way.
  const unlock = await takeLock(join(ctx.home, 'pack.lock'), { what: `home ${quote(ctx.home)} is packing in`, command: 'pack' });
  try {
    return await packLocked(ctx, opts, onEvent, signal);
  } finally {
    await unlock().catch((e: unknown) => onEvent({ type: 'warning', code: 'LEFT_OVER', message: `cannot remove the pack lock of ${quote(ctx.home)}: ${(e as Error).message}` }));
  }
}

async function packLocked(ctx: Context, opts: PackOptions & { packTarget?: number }, onEvent: EventSink, signal?: AbortSignal): Promise<PackSummary> {
  const started = performance.now();
  const me = ctx.identity();
  if (opts.against !== undefined && opts.full) throw new BrickpostError('USAGE', '--against and --full do not go together', { hint: 'a shipment against a signature file is never self-contained; drop one' });
  if (opts.expiresIn !== undefined && !(opts.expiresIn >= 1 && opts.expiresIn <= 100 * 366 * 86400)) {
    throw new BrickpostError('USAGE', `an expiry ${String(opts.expiresIn)} seconds after packing is not between 1 second and 100 years`, { hint: 'give --expires a duration such as 90d' });
  }
  const srcStat = await stat(resolve(opts.source)).catch(() => null);
  if (!srcStat?.isDirectory()) throw new BrickpostError('NOT_FOUND', `source ${quote(opts.source)} is not a folder`);
  const source = await realpath(resolve(opts.source));
  const drives = await planDrives(opts, source);

  for (const [what, v] of [['label', opts.label], ['dataset', opts.dataset]] as const) {
    if (v !== undefined && (v !== v.trim() || /[\u0000-\u001f\u007f]/.test(v) || v.length > 255)) {
      throw new BrickpostError('USAGE', `${what} ${quote(v)} must have no leading or trailing spaces or control characters, and at most 255 characters`);
    }
  }
  const recipientStrings = [...new Set([...(opts.noSelf ? [] : [me.recipient]), ...opts.recipients])];
  if (recipientStrings.length === 0) throw new BrickpostError('USAGE', 'no recipients', { hint: 'give --recipient age1…, or drop --no-self' });
  const recipients = recipientStrings.map((r) => age.parseRecipient(r));

  let warnings = 0;
  const warn = (code: string, message: string, path?: string): void => {
    warnings++;
    onEvent({ type: 'warning', code, message, ...(path ? { path } : {}) });
  };

  const exclude = await excluder(opts);
  const datasetName = opts.dataset ?? basename(source);
  const dataset = openDataset(ctx, datasetName, me.keyId);
  const db = ctx.catalog.db;
  // Relative to the recipients' trees (bases), or to what a signature file lists (against), or to nothing.
  const against = opts.against !== undefined ? await loadAgainst(ctx, opts.against, dataset.id) : null;
  await finishSealing(ctx.catalog, dataset.id, drives.roots, me.recipient, warn);
  const interrupted = findInterrupted(db, dataset.id);
  let plan: ChainPlan;
  try {
    if (opts.resume) {
      if (!interrupted) throw new BrickpostError('USAGE', `dataset ${quote(datasetName)} has no interrupted shipment to resume`, { hint: 'drop --resume to pack a new shipment' });
      checkLayout(interrupted, drives.roots.length, drives.parity);
      if (interrupted.against !== (against?.sha256 ?? null)) throw new BrickpostError('USAGE', `shipment ${quote(interrupted.id)} was packed ${interrupted.against ? 'against a signature file' : 'without --against'}; give the same options to resume it`);
      if (opts.recovery === undefined) drives.recovery = interrupted.layout.recovery;
      plan = interrupted.plan;
    } else {
      if (interrupted) await discard(ctx, interrupted.id, drives.roots, warn);
      plan = planChain(db, dataset.id, recipientStrings.filter((r) => r !== me.recipient), opts.full === true || against !== null);
    }
  } catch (e) {
    against?.held.close();
    throw e;
  }
  const resuming = opts.resume ? interrupted : null;
  if (against) plan.notes = [`built against ${quote(opts.against!)}: held chunks are those it lists`];
  const baseIds = plan.bases.map((b) => b.shipmentId);
  const held: HeldSet = against?.held ?? heldInTrees(db, baseIds);
  const reference = opts.rehash || baseIds.length === 0 ? null : TreeLookup.referenceTree(db, dataset.id);
  const lookup = new TreeLookup(db, reference, baseIds);

  const progress = new Progress(onEvent, 'pack');
  progress.emit();
  const shipmentId = resuming?.id ?? newShipmentId(randomBytes(4));
  const layout = { drives: drives.roots.length, parity: drives.parity, recovery: drives.recovery };
  let kept: PackInfo[] = [];
  try {
    if (resuming) kept = await keepPacks(db, shipmentId, drives.roots, layout);
  } catch (e) {
    against?.held.close();
    throw toEnvironmentError(e, 'cannot read the interrupted shipment');
  }
  // The catalog knows the shipment before any folder of it exists on a drive, so a pack killed at
  // any point leaves nothing on the drives that a later pack (or pack --resume) does not know of.
  const label = resuming?.label ?? opts.label ?? '';
  const rows = new ShipmentRows(ctx, dataset, shipmentId, label, recipientStrings, plan, against?.sha256 ?? null, layout, resuming ? { created: resuming.created, kept } : undefined);
  let out: ShipmentWriter;
  try {
    out = await ShipmentWriter.open({ drives: drives.roots, parity: drives.parity, recovery: drives.recovery, capacities: drives.capacities, shipment: shipmentId, recipients, onEvent });
    await out.replay(kept);
  } catch (e) {
    against?.held.close();
    if (resuming) rows.interrupted();
    else rows.failed();
    throw toEnvironmentError(e, 'cannot create the shipment folder');
  }
  // The totals (for the ETA and the space check) are measured while packing starts.
  let measured: Error | null = null;
  const measuring = measure(source, { exclude, excludeCaches: opts.excludeCaches === true }).then(
    (t) => {
      progress.bytesTotal = t.bytes;
      progress.filesTotal = t.files;
      checkCapacity(drives, t.bytes);
      const each = bytesPerDrive(t.bytes, drives.roots.length, drives.parity, 0);
      for (const d of out.targets) d.expected = each;
    },
    (e: unknown) => void (measured = e as Error),
  ).catch((e: unknown) => void (measured = e as Error));

  const key = chunkKey(dataset.secret);
  const store = new ChunkStore(out.openPack, out.k, rows, held, opts.packTarget ?? PACK_TARGET, kept);
  const pipeline = chunkPipeline({ key, level: opts.level ?? 3 });
  const manifest = out.manifest;
  const counts: PackEntryCounts = { files: 0, dirs: 0, links: 0, hardLinks: 0, specials: 0, sparseFiles: 0, holeBytes: 0, withXattrs: 0, withAcls: 0, excluded: 0, notShipped: {} };
  const notShipped = (path: string, reason: string): void => {
    counts.notShipped[reason] = (counts.notShipped[reason] ?? 0) + 1;
    warn('NOT_SHIPPED', `not shipped: ${quote(path)}: ${reason}`, path);
  };
  const portability = new Portability(opts.portable === true);
  /** Set once the catalog holds the shipment as 'sealing': from there on it is finished, not dropped. */
  let sealing = false;
  const entries = new EntryPacker({ db, manifest, store, rows, lookup, pipeline, progress, warn, sha: against?.ids === 'sha256', notShipped });
  const bases = plan.bases;
  try {
    await manifest.add({
      t: 'shipment',
      format: MANIFEST_FORMAT,
      shipment: shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      bases: bases.map((b) => [b.shipmentId, b.seq]),
      against: against?.sha256 ?? null,
      label,
      created: rows.created,
      publisher: me.keyId,
      secret: dataset.secret.toString('base64'),
      chunker: 'fastcdc-v1',
    });
    const skipped = (sk: { path: string; reason: string; kind: string }): void => {
      if (sk.kind === 'excluded' || sk.kind === 'cache') counts.excluded++;
      else notShipped(sk.path, sk.reason);
    };
    const walkWarn = (message: string, path: string): void => warn('ATTRIBUTES', message, path);
    for await (const entry of walk(source, skipped, { exclude, excludeCaches: opts.excludeCaches === true, warn: walkWarn })) {
      if (signal?.aborted) throw new BrickpostError('CANCELLED', 'pack cancelled');
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- set in a callback, which TypeScript does not follow
      if (measured) throw measured;
      count(counts, entry);
      portability.check(entry.path);
      await entries.add(entry);
    }
    await entries.finish();
    await measuring;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- set in a callback, which TypeScript does not follow
    if (measured) throw measured;
    counts.sparseFiles = entries.sparseFiles;
    counts.holeBytes = entries.holeBytes;
    const missed = Object.entries(counts.notShipped);
    if (opts.strict && missed.length > 0) {
      throw new BrickpostError('SOURCE_INCOMPLETE', `pack --strict: ${missed.map(([why, n]) => `${n} ${n === 1 ? 'entry' : 'entries'} ${why}`).join(', ')}; nothing was shipped`, {
        hint: 'the warnings above name each entry; fix their permissions (or exclude them with --exclude), or pack without --strict to ship the rest',
      });
    }
    const packs = await store.finish();
    progress.phase = 'seal';
    progress.emit();
    for (const p of packs) await manifest.add({ t: 'pack', i: p.index, path: p.path, size: p.size, plain: p.plain, chunks: p.chunks });
    const t = manifest.totals;
    Object.assign(counts, { files: t.files, dirs: t.dirs, links: t.links, hardLinks: t.hard, specials: t.specials });
    await manifest.add({ t: 'end', dirs: t.dirs, files: t.files, links: t.links, hard: t.hard, specials: t.specials, bytes: t.bytes, chunks: t.chunks, packs: t.packs });
    // Groups of names that differ only in case are complete once the manifest is: nothing is sealed yet.
    portability.finish(manifest.collisions);
    const m = await manifest.close();
    const sealed = await out.seal(
      {
        format: FORMAT_VERSION,
        shipment: shipmentId,
        dataset: datasetName,
        datasetId: dataset.id,
        seq: rows.seq,
        parent: rows.parent,
        label,
        publisher: ctx.name,
        publisherKey: me.keyId,
        created: rows.created,
        ...(opts.expiresIn !== undefined ? { expires: new Date(Date.parse(rows.created) + opts.expiresIn * 1000).toISOString() } : {}),
        entries: t.dirs + t.files + t.links + t.hard + t.specials,
        files: t.files,
        bytes: t.bytes,
      },
      store.streams,
      m,
      me.signingKey,
      // Recorded (and synced) before any drive shows the shipment: the catalog never lags the drives.
      (bytesOnDrive) => {
        rows.sealing(t.files, t.bytes, bytesOnDrive);
        sealing = true;
      },
    );
    rows.sealed(me.recipient);
    await recordSealed(ctx, shipmentId, sealed.paths, onEvent);
    const seconds = (performance.now() - started) / 1000;
    // The planner's measured drive speed; a resumed pack did not write its kept packs in this time.
    if (kept.length === 0) recordDriveRate(db, { shipment: shipmentId, bytes: sealed.bytesOnDrive, drives: drives.roots.length, seconds });
    progress.emit();
    const c = store.counts;
    return {
      shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      files: t.files,
      dirs: t.dirs,
      bytesIn: entries.bytesIn,
      bytesOnDrive: sealed.bytesOnDrive,
      chunks: t.chunks,
      chunksDeduplicated: c.chunksDeduplicated,
      packs: packs.length,
      recipients: recipientStrings,
      path: sealed.paths[0]!,
      paths: sealed.paths,
      parity: drives.parity,
      recovery: drives.recovery,
      packsKept: kept.length,
      seconds,
      warnings,
      full: bases.length === 0 && against === null,
      bases: bases.map((b) => ({ shipmentId: b.shipmentId, seq: b.seq })),
      against: against?.sha256 ?? null,
      filesRead: entries.filesRead,
      bytesRead: entries.bytesRead,
      filesUnchanged: entries.filesUnchanged,
      chunksHeld: c.chunksHeld,
      bytesHeld: c.bytesHeld,
      chunksDelta: c.chunksDelta,
      bytesDelta: c.bytesDelta,
      deltaFrameBytes: c.deltaFrameBytes,
      notes: plan.notes,
      entries: counts,
    };
  } catch (e) {
    const err = isBrickpostError(e) ? e : toEnvironmentError(e, 'pack failed');
    if (sealing) {
      // Written and signed everywhere: finished by the next pack (sealing.ts), never redone.
      throw new BrickpostError(err.code, `${err.message}; shipment ${shipmentId} is sealed on every drive, but not yet in place on all of them or recorded so`, {
        cause: err,
        ...(err.path ? { path: err.path } : {}),
        hint: `${err.hint ?? 'fix the drive'}; the next pack of dataset ${quote(datasetName)} to the same drives puts it in place first`,
      });
    }
    await store.abort();
    // A drive that filled up or failed: keep what is written for --resume.
    const resumable = err.category === 'environment' && !(err instanceof CapacityError) && err.code !== 'SOURCE_INCOMPLETE';
    await out.abort(resumable);
    if (!resumable) {
      rows.failed();
      throw err;
    }
    rows.interrupted();
    throw new BrickpostError(err.code, `${err.message}; the shipment is kept unfinished (${store.packCount} finished packs)`, {
      cause: err,
      ...(err.path ? { path: err.path } : {}),
      hint: err.hint?.includes('--resume') ? err.hint : `${err.hint ?? 'fix the drive'}; then run the same pack command with --resume to continue without rewriting the finished packs`,
    });
  } finally {
    against?.held.close();
    await pipeline.close();
  }
}

/** Drops an interrupted shipment that a new pack replaces: its catalog rows and its `.part` folders on the drives given. */
async function discard(ctx: Context, id: string, roots: string[], warn: (code: string, message: string) => void): Promise<void> {
  warn('INTERRUPTED_DROPPED', `shipment ${id} of this dataset was interrupted; a new shipment replaces it (pack --resume would have continued it)`);
  // Folders first: a kill in between leaves a row that the next pack drops again, never an unknown folder.
  for (const r of roots) await rm(bagDir(r, id) + PART_SUFFIX, { recursive: true, force: true });
  ctx.catalog.db.prepare('DELETE FROM shipments WHERE id = ?').run(id);
}

/**
 * The exclude patterns of --exclude and --exclude-from, or undefined.
 * @throws BrickpostError USAGE (a pattern that cannot be read, an exclude file that cannot be read)
 */
async function excluder(opts: PackOptions): Promise<Excluder | undefined> {
  const patterns = [...(opts.exclude ?? [])];
  for (const f of opts.excludeFrom ?? []) {
    let text: string;
    try {
      text = await readFile(f, 'utf8');
    } catch (e) {
      throw new BrickpostError('USAGE', `cannot read exclude file ${quote(f)}: ${(e as Error).message}`, { hint: 'give a file of patterns, one per line' });
    }
    patterns.push(...parseExcludeFile(text));
  }
  return patterns.length > 0 ? compileExcludes(patterns) : undefined;
}

/** Counts the attributes of one entry of the source (its kind is counted from the manifest). */
function count(c: PackEntryCounts, e: SourceEntry): void {
  if (e.attrs.x) c.withXattrs++;
  if (e.attrs.acl) c.withAcls++;
}

/**
 * pack --portable: names some systems cannot hold (not UTF-8 or not NFC,
 * controls or a backslash, Windows' reserved names and characters) and
 * names that differ only in case or Unicode form, collected while packing
 * and refused before the shipment is sealed.
 */
class Portability {
  private readonly problems: string[] = [];
  private count = 0;

  constructor(private readonly on: boolean) {}

  check(path: string): void {
    if (!this.on) return;
    const name = path.slice(path.lastIndexOf('/') + 1);
    const why = componentProblem(name) ?? windowsNameProblem(name);
    if (why) this.add(`${displayName(path)}: ${why}`);
  }

  /** @throws BrickpostError UNSAFE_PATH listing what is not portable */
  finish(collisions: ReadonlyArray<{ parent: string; names: string[] }>): void {
    if (!this.on) return;
    for (const c of collisions) this.add(`${c.names.map((n) => quote(displayName(c.parent ? `${c.parent}/${n}` : n))).join(' and ')} differ only in case or Unicode form`);
    if (this.count === 0) return;
    throw new BrickpostError('UNSAFE_PATH', `pack --portable: ${this.count} ${this.count === 1 ? 'name is' : 'names are'} not portable: ${this.problems.slice(0, 20).join('; ')}${this.count > 20 ? '; …' : ''}`, {
      hint: 'rename them (or exclude them with --exclude), or pack without --portable: then only destinations that cannot hold them refuse the shipment',
    });
  }

  private add(problem: string): void {
    this.count++;
    if (this.problems.length < 20) this.problems.push(problem);
  }
}
