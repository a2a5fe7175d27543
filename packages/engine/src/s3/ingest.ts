import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbortMultipartUploadCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { BrickpostError, quote, type FileRecord, type HardRecord, type ShipmentRecord } from '@brickpost/manifest';
import type { EventSink, IngestOptions, IngestSummary } from '../api/index.js';
import { chunkKey } from '../chunk/index.js';
import type { Context } from '../context.js';
import { openReadable } from '../extract/open.js';
import { failpoint } from '../io/failpoint.js';
import { checkNotExpired } from '../ingest/expiry.js';
import { UNDO_KEEP } from '../ingest/retention.js';
import { Progress } from '../io/progress.js';
import { readManifest } from '../verify/manifest-stream.js';
import { walkShipment } from '../verify/walk-shipment.js';
import { s3Client, s3Error } from './client.js';
import { eachLimited, Objects } from './objects.js';
import { Stager } from './stager.js';
import { finishCommit } from './commit.js';
import { COMMIT, openTree, PARALLEL, STAGING, STATE, treeKey, undoKey, type S3Commit, type S3State } from './state.js';
import { keysOf } from './undo.js';
import { lockPrefix } from './lock.js';
import { settleS3 } from './rollback.js';
import { survey } from './survey.js';
import { commandPlace, parseS3Url } from './url.js';
import { removeTree } from '../io/remove-tree.js';

/**
 * Ingests a shipment into `s3://BUCKET/PREFIX` (README "Object storage").
 * Nothing under the prefix changes before the commit point: the files are
 * uploaded under PREFIX/.brickpost/staging/SHIPMENT/, each chunk checked
 * before it is sent; files the prefix already holds unchanged stay, moved
 * ones are copied on the server. Then the new tree is stored and
 * `commit.json` written (the commit point), the staged objects are copied
 * to their keys, objects of the old tree that the new one lacks are
 * deleted, and the new state written (state.ts). A crash before the commit
 * point leaves the prefix as it was (the next ingest of the same shipment
 * keeps the files already staged, any other clears them); after it, the
 * next ingest, or any brickpost job on the prefix, finishes the commit.
 * @throws BrickpostError NOT_FOUND (no bucket), PERMISSION (credentials refused, access denied), USAGE (names or objects in the way), CHAIN_*, DATASET_MISMATCH and EXPIRED, BASIS_MISSING, what reading the drive throws, IO
 */
export async function s3Ingest(ctx: Context, opts: IngestOptions, onEvent: EventSink, signal?: AbortSignal): Promise<IngestSummary> {
  const started = performance.now();
  const place = parseS3Url(opts.dest);
  const o = new Objects(s3Client(opts.s3), place);
  const unlock = await lockPrefix(ctx, place, opts.s3, 'ingest');
  const scratch = await mkdtemp(join(tmpdir(), 'brickpost-s3-'));
  let warnings = 0;
  const warn = (code: string, message: string): void => {
    warnings++;
    onEvent({ type: 'warning', code, message });
  };
  try {
    await settleS3(o, scratch, warn);
    const state = await o.getJson<S3State>(STATE);
    const r = await openReadable(ctx, opts.drive, opts.drives ?? [], opts.shipment, onEvent, signal, opts.maxExpansion);
    try {
      let h: ShipmentRecord | null = null;
      for await (const rec of readManifest(r.shipment, r.identities)) {
        if (rec.t === 'shipment') h = rec;
        break;
      }
      if (!h) throw new BrickpostError('MALFORMED', `the manifest of shipment ${r.shipment.id} does not start with its shipment record`);
      const base = { shipmentId: h.shipment, dataset: h.dataset, seq: h.seq, created: h.created, dest: place.url };
      if (state?.shipment === h.shipment) return { ...empty(base, true), seconds: (performance.now() - started) / 1000, warnings };
      checkNotExpired(r.shipment, opts.allowExpired === true);
      if (opts.keepDays !== undefined)
        throw new BrickpostError('USAGE', `${place.url}: a bucket keeps the undo of its last shipments by count, not by days`, {
          hint: `give --keep-undo N instead: brickpost ingest ${opts.drive} ${commandPlace(place.url, opts.s3)} --keep-undo 3`,
        });
      checkChain(state, h, place.url);

      // The old tree (empty for a first shipment) and the new one, side by side.
      const oldFile = join(scratch, 'old.sqlite');
      if (state && !(await o.getFile(state.tree, oldFile)))
        throw new BrickpostError('BASIS_MISSING', `${place.url}: its state names tree ${quote(state.tree)}, which is gone`, {
          hint: 'ingest a self-contained shipment into an empty prefix',
        });
      openTree(oldFile).close();
      const treeFile = join(scratch, 'tree.sqlite');
      const tree = openTree(treeFile);
      try {
        tree.prepare('ATTACH DATABASE ? AS old').run(oldFile);
        const found = await survey(r, tree, o, state !== null);
        if (found.foreign > 0)
          warn(
            'KEPT',
            `${place.url} holds ${found.foreign} ${found.foreign === 1 ? 'object' : 'objects'} brickpost did not write; ${found.foreign === 1 ? 'it stays' : 'they stay'} as ${found.foreign === 1 ? 'it is' : 'they are'}`,
          );
        const staging = `${STAGING}${h.shipment}/`;
        const staged = await clearStaging(o, staging, tree);
        if (staged > 0) warn('RESUMED', `${place.url}: ${staged} ${staged === 1 ? 'file' : 'files'} of an interrupted ingest of this shipment are kept`);

        // Unchanged files stay; files whose content another old object holds are copied on the server.
        const unchanged = tree
          .prepare(
            'SELECT 1 FROM files f JOIN old.files g ON g.path = f.path WHERE f.path = ? AND f.digest IS NOT NULL AND g.digest = f.digest AND g.size = f.size',
          )
          .pluck();
        const copyFrom = tree
          .prepare('SELECT g.path FROM files f JOIN old.files g ON g.digest = f.digest AND g.size = f.size WHERE f.path = ? AND f.digest IS NOT NULL LIMIT 1')
          .pluck();
        const isStaged = tree.prepare('SELECT 1 FROM temp.staged WHERE path = ? AND size = ?').pluck();
        tree.exec('CREATE TEMP TABLE copies (path TEXT PRIMARY KEY, src TEXT NOT NULL)');
        const addCopy = tree.prepare('INSERT OR REPLACE INTO temp.copies (path, src) VALUES (?, ?)');
        let filesUnchanged = 0;
        let filesLinked = 0;
        const skip = (f: FileRecord): boolean => {
          if (isStaged.get(staging + f.p, f.size)) return true;
          if (unchanged.get(f.p)) return (filesUnchanged++, true);
          const src = copyFrom.get(f.p) as string | undefined;
          if (src !== undefined) return (addCopy.run(staging + f.p, src), filesLinked++, true);
          return false;
        };
        // Hard links wait in the scratch database until their file is staged.
        tree.exec('CREATE TEMP TABLE hard (path TEXT PRIMARY KEY, target TEXT NOT NULL)');
        const addHard = tree.prepare('INSERT OR REPLACE INTO temp.hard (path, target) VALUES (?, ?)');
        const progress = new Progress(onEvent, 'ingest');
        progress.bytesTotal = found.bytes;
        progress.filesTotal = found.files;
        const stager = new Stager(
          o,
          staging,
          skip,
          tree,
          chunkKey(Buffer.from(h.secret, 'base64')),
          (x: HardRecord) => void addHard.run(x.p, x.to),
          () => progress.add(0, 1),
        );
        try {
          await walkShipment(r.shipment, r.identityText, stager, progress, signal, r.allPacks);
          await stager.finish();
        } catch (e) {
          await stager.abort();
          throw e;
        }
        const copies = tree.prepare('SELECT c.path, c.src, g.size FROM temp.copies c JOIN old.files g ON g.path = c.src').iterate() as IterableIterator<{
          path: string;
          src: string;
          size: number;
        }>;
        await eachLimited(copies, PARALLEL, (c) => o.copy(c.src, c.path, c.size));
        const sizeOf = tree.prepare('SELECT size FROM files WHERE path = ?').pluck();
        const hard = tree.prepare('SELECT path, target FROM temp.hard').iterate() as IterableIterator<{ path: string; target: string }>;
        await eachLimited(hard, PARALLEL, async (x) => {
          const src = unchanged.get(x.target) ? x.target : staging + x.target;
          await o.copy(src, staging + x.path, (sizeOf.get(x.target) as number | undefined) ?? 0);
        });
        tree.exec('DETACH DATABASE old');
        tree.close();
        await o.putFile(treeKey(h.shipment), treeFile);

        const applied = new Date().toISOString();
        const keepUndo = opts.keepUndo ?? state?.keepUndo ?? UNDO_KEEP;
        const keepAll = opts.keepAll ?? state?.keepAll ?? false;
        const next: S3State = {
          format: 'brickpost-s3-dest-1',
          dataset: h.dataset,
          datasetId: h.datasetId,
          publisher: h.publisher,
          shipment: h.shipment,
          seq: h.seq,
          tree: treeKey(h.shipment),
          keepUndo,
          keepAll,
          history: [
            ...(state?.history ?? []),
            {
              shipment: h.shipment,
              seq: h.seq,
              label: h.label,
              created: h.created,
              applied,
              files: found.files,
              bytes: found.bytes,
              bytesFromDrive: stager.bytesFromDrive,
            },
          ].slice(-1000),
        };
        // Undo objects under this sequence number are a rolled-back shipment's that a crash left: the commit writes its own.
        await o.deleteMany(keysOf(o.list(undoKey(h.seq))));
        await o.putJson(COMMIT, { shipment: h.shipment, state: next, oldTree: state?.tree ?? null } satisfies S3Commit);
        failpoint('s3-commit');
        const done = await finishCommit(o, { shipment: h.shipment, state: next, oldTree: state?.tree ?? null }, scratch);
        progress.emit();
        return {
          ...empty(base, false),
          files: found.files,
          dirs: found.dirs,
          links: found.links,
          hardLinks: found.hardLinks,
          specials: found.specials,
          incremental: found.incremental,
          bytesWritten: progress.bytesDone,
          filesUnchanged,
          filesWritten: stager.filesWritten,
          filesLinked,
          retired: done.retired,
          bytesFromDrive: stager.bytesFromDrive,
          bytesReused: stager.bytesReused,
          chunksFromDelta: stager.deltas,
          notApplied: found.notApplied,
          seconds: (performance.now() - started) / 1000,
          warnings,
        };
      } finally {
        if (tree.open) tree.close();
      }
    } finally {
      await r.close();
    }
  } finally {
    await removeTree(scratch);
    o.client.destroy();
    await unlock();
  }
}

/**
 * Shipments apply in order, as to a folder: the next one of the dataset
 * (parent = the shipment applied last), or a self-contained one; a first
 * shipment must be self-contained.
 * @throws BrickpostError DATASET_MISMATCH, CHAIN_REPLAY, CHAIN_GAP, CHAIN_FORK, BASIS_MISSING
 */
function checkChain(state: S3State | null, h: ShipmentRecord, url: string): void {
  const selfContained = h.bases.length === 0 && h.against === null;
  if (!state) {
    if (!selfContained)
      throw new BrickpostError(
        'BASIS_MISSING',
        `shipment ${h.shipment} (seq ${h.seq}) builds on an earlier shipment, and ${url} holds none of dataset ${quote(h.dataset)}`,
        { hint: 'ingest the first, self-contained shipment first (the publisher packs one with --full)' },
      );
    return;
  }
  if (state.datasetId !== h.datasetId)
    throw new BrickpostError('DATASET_MISMATCH', `${url} holds dataset ${quote(state.dataset)}, not ${quote(h.dataset)}`, {
      hint: 'ingest it into another prefix',
    });
  if (selfContained && h.seq > state.seq) return;
  if (h.seq <= state.seq)
    throw new BrickpostError(
      'CHAIN_REPLAY',
      `shipment ${h.shipment} (seq ${h.seq}) is older than shipment ${state.shipment} (seq ${state.seq}) that ${url} holds`,
      { hint: 'ingest a later shipment' },
    );
  if (h.parent !== state.shipment) {
    if (h.seq > state.seq + 1)
      throw new BrickpostError('CHAIN_GAP', `shipment ${h.shipment} (seq ${h.seq}) follows seq ${h.seq - 1}, but ${url} holds seq ${state.seq}`, {
        hint: 'ingest the shipments in between first',
      });
    throw new BrickpostError('CHAIN_FORK', `shipment ${h.shipment} (seq ${h.seq}) does not follow shipment ${state.shipment} that ${url} holds`, {
      hint: 'ask the publisher for a self-contained shipment (pack --full)',
    });
  }
}

/**
 * Clears what interrupted ingests left under the staging prefix: unfinished
 * multipart uploads, and the staged objects of other shipments. Records in
 * `tree` (temp.staged) the objects this shipment's staging already holds,
 * and returns how many.
 */
async function clearStaging(o: Objects, staging: string, tree: import('better-sqlite3').Database): Promise<number> {
  tree.exec('CREATE TEMP TABLE staged (path TEXT PRIMARY KEY, size INTEGER NOT NULL)');
  const add = tree.prepare('INSERT OR REPLACE INTO temp.staged (path, size) VALUES (?, ?)');
  let mine = 0;
  let keyMarker: string | undefined;
  let idMarker: string | undefined;
  for (;;) {
    let page;
    try {
      page = await o.client.send(
        new ListMultipartUploadsCommand({
          Bucket: o.place.bucket,
          Prefix: o.key(STAGING),
          ...(keyMarker ? { KeyMarker: keyMarker, UploadIdMarker: idMarker } : {}),
        }),
      );
    } catch (e) {
      throw s3Error(e, 'cannot list the unfinished uploads of', o.place, o.key(STAGING));
    }
    for (const u of page.Uploads ?? []) {
      await o.client.send(new AbortMultipartUploadCommand({ Bucket: o.place.bucket, Key: u.Key!, UploadId: u.UploadId! })).catch((e: unknown) => {
        throw s3Error(e, 'cannot abort an unfinished upload of', o.place, u.Key);
      });
    }
    if (!page.IsTruncated) break;
    keyMarker = page.NextKeyMarker;
    idMarker = page.NextUploadIdMarker;
  }
  const others: string[] = [];
  for await (const { rel, size } of o.list(STAGING)) {
    if (rel.startsWith(staging)) (add.run(rel, size), mine++);
    else others.push(rel);
    if (others.length >= 1000) await eachLimited(others.splice(0), PARALLEL, (k) => o.delete(k));
  }
  await eachLimited(others, PARALLEL, (k) => o.delete(k));
  return mine;
}

function empty(
  base: Pick<IngestSummary, 'shipmentId' | 'dataset' | 'seq' | 'created' | 'dest'>,
  alreadyApplied: boolean,
): Omit<IngestSummary, 'seconds' | 'warnings'> {
  return {
    ...base,
    files: 0,
    dirs: 0,
    bytesWritten: 0,
    alreadyApplied,
    incremental: false,
    filesUnchanged: 0,
    filesWritten: 0,
    filesLinked: 0,
    retired: 0,
    bytesFromDrive: 0,
    bytesReused: 0,
    chunksFromDelta: 0,
    skipped: 0,
    skippedList: null,
    laterOnDrive: [],
    links: 0,
    hardLinks: 0,
    specials: 0,
    notApplied: {},
    notAppliedList: null,
    destination: { caseInsensitive: false, normalizationInsensitive: false, windowsNames: false },
  };
}
