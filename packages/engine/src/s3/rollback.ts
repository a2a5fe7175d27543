import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { DestInProgress, DestStatus, EventSink, ResumeSummary, RollbackOptions, RollbackSummary, S3Options } from '../api/index.js';
import type { Context } from '../context.js';
import { failpoint } from '../io/failpoint.js';
import { inProgressLines } from '../ingest/in-progress.js';
import { s3Client } from './client.js';
import { finishCommit } from './commit.js';
import { lockPrefix } from './lock.js';
import { Objects } from './objects.js';
import { COMMIT, keptUndo, ROLLBACK, STATE, type S3Commit, type S3State } from './state.js';
import { reachable, runRollback, type S3RollbackJournal } from './undo.js';
import { commandPlace, parseS3Url } from './url.js';
import { removeTree } from '../io/remove-tree.js';

/**
 * Finishes what a crash left under the prefix: an ingest past its commit
 * point (commit.json) or a rollback (rollback.json). Every job on the
 * prefix runs this first, under the prefix's lock. Returns what it
 * finished, or null.
 */
export async function settleS3(o: Objects, scratch: string, warn: (code: string, message: string) => void): Promise<string | null> {
  const pending = await o.getJson<S3Commit>(COMMIT);
  if (pending) {
    warn('RESUMED', `${o.place.url}: finishing the interrupted ingest of shipment ${pending.shipment}`);
    await finishCommit(o, pending, scratch);
    return `the commit of shipment ${pending.shipment} (seq ${pending.state.seq})`;
  }
  const rolling = await o.getJson<S3RollbackJournal>(ROLLBACK);
  if (rolling) {
    warn('RESUMED', `${o.place.url}: finishing the interrupted rollback to shipment ${rolling.to.shipment} (seq ${rolling.to.seq})`);
    await runRollback(o, rolling, scratch, () => undefined);
    return `the rollback to shipment ${rolling.to.shipment} (seq ${rolling.to.seq})`;
  }
  return null;
}

/** A prefix opened for a job: its objects, a scratch folder, and the lock; `close` releases all three. */
async function openPrefix(
  ctx: Context,
  dest: string,
  s3: S3Options | undefined,
  command: string,
): Promise<{ o: Objects; scratch: string; close: () => Promise<void> }> {
  const place = parseS3Url(dest);
  const unlock = await lockPrefix(ctx, place, s3, command);
  const o = new Objects(s3Client(s3), place);
  const scratch = await mkdtemp(join(tmpdir(), 'brickpost-s3-'));
  return {
    o,
    scratch,
    close: async () => {
      await removeTree(scratch);
      o.client.destroy();
      await unlock();
    },
  };
}

/** The state of a prefix, or NOT_FOUND saying how to make one. */
async function stateOf(o: Objects): Promise<S3State> {
  const state = await o.getJson<S3State>(STATE);
  if (!state)
    throw new BrickpostError('NOT_FOUND', `${o.place.url} is not a brickpost destination: it has no .brickpost/state.json`, {
      hint: `ingest a shipment into it first: brickpost ingest DRIVE ${o.place.url}`,
    });
  return state;
}

/**
 * Returns `s3://BUCKET/PREFIX` to the objects it held after an earlier
 * shipment, undoing the later ones newest first from their undo objects
 * (undo.ts). Refused, before anything changes, when a shipment to undo
 * kept no undo.
 * @throws BrickpostError NOT_FOUND (no such shipment, no state, no bucket), USAGE (undo not kept), LOCKED, PERMISSION, IO
 */
export async function s3Rollback(ctx: Context, opts: RollbackOptions, onEvent: EventSink): Promise<RollbackSummary> {
  const started = performance.now();
  const { o, scratch, close } = await openPrefix(ctx, opts.dest, opts.s3, 'rollback');
  try {
    await settleS3(o, scratch, (code, message) => onEvent({ type: 'warning', code, message }));
    const state = await stateOf(o);
    const url = o.place.url;
    const target = state.history.find((h) => h.shipment === opts.to) ?? state.history.find((h) => String(h.seq) === opts.to);
    if (!target)
      throw new BrickpostError('NOT_FOUND', `no shipment ${quote(opts.to)} was applied to ${url}`, {
        hint: `'brickpost history ${commandPlace(url, opts.s3)}' lists them (give an id or a sequence number)`,
      });
    const from = state.history[state.history.length - 1]!;
    const summary = (undone: S3State['history']): RollbackSummary => ({
      dest: url,
      from: { shipmentId: from.shipment, seq: from.seq },
      to: { shipmentId: target.shipment, seq: target.seq },
      undone: undone.map((h) => ({ shipmentId: h.shipment, seq: h.seq })),
      seconds: (performance.now() - started) / 1000,
    });
    if (target === from) return summary([]);
    if (!reachable(state).includes(target)) {
      const missing = state.history.slice(state.history.indexOf(target) + 1).find((h) => !h.undo)!;
      const keep = keptUndo(state);
      throw new BrickpostError(
        'USAGE',
        `cannot roll ${url} back to seq ${target.seq}: the undo objects of shipment ${quote(missing.shipment)} (seq ${missing.seq}) were not kept (${keep === 0 ? 'ingest kept none' : `the last ${keep} shipments keep theirs`})`,
        {
          hint: `roll back to a later point ('brickpost history ${commandPlace(url, opts.s3)}' marks them kept), or ingest with a larger --keep-undo next time`,
        },
      );
    }
    const journal: S3RollbackJournal = { to: { shipment: target.shipment, seq: target.seq }, from: { shipment: from.shipment, seq: from.seq } };
    await o.putJson(ROLLBACK, journal);
    failpoint('s3-rollback-begin');
    const undone: S3State['history'] = [];
    await runRollback(o, journal, scratch, (h) => void undone.push(h));
    return summary(undone);
  } finally {
    await close();
  }
}

/** Finishes an interrupted ingest or rollback of a prefix; nothing to do is not an error. @throws NOT_FOUND, LOCKED, PERMISSION, IO */
export async function s3Resume(ctx: Context, dest: string, s3: S3Options | undefined, onEvent: EventSink): Promise<ResumeSummary> {
  const started = performance.now();
  const { o, scratch, close } = await openPrefix(ctx, dest, s3, 'resume');
  try {
    const finished = await settleS3(o, scratch, (code, message) => onEvent({ type: 'warning', code, message }));
    const state = await stateOf(o);
    return { dest: o.place.url, finished, current: { shipmentId: state.shipment, seq: state.seq }, seconds: (performance.now() - started) / 1000 };
  } finally {
    await close();
  }
}

/**
 * What a prefix holds and whether an ingest or rollback of it is under way
 * or interrupted (commit.json, rollback.json). Reads only, takes no lock:
 * `lock` is null (the lock of another machine cannot be seen), and a job
 * found is reported as not running.
 * @throws BrickpostError NOT_FOUND (no bucket), PERMISSION, IO
 */
export async function s3Status(dest: string, s3?: S3Options): Promise<DestStatus> {
  const place = parseS3Url(dest);
  const o = new Objects(s3Client(s3), place);
  try {
    const state = await o.getJson<S3State>(STATE);
    const inProgress = await s3InProgress(o, state);
    const cur = state?.history[state.history.length - 1];
    return {
      dest: place.url,
      brickpost: state !== null,
      dataset: state?.dataset ?? null,
      datasetId: state?.datasetId ?? null,
      publisherKeyId: state?.publisher ?? null,
      current: cur ? { shipmentId: cur.shipment, seq: cur.seq, label: cur.label, appliedAt: cur.applied } : null,
      shipments: state?.history.length ?? 0,
      lock: null,
      inProgress,
      next: inProgress ? `brickpost resume ${commandPlace(place.url, s3)}` : null,
    };
  } finally {
    o.client.destroy();
  }
}

/** An ingest past its commit point or a rollback not finished, from their journals (reported as interrupted). */
export async function s3InProgress(o: Objects, state: S3State | null): Promise<DestInProgress | null> {
  const from = state ? { shipmentId: state.shipment, seq: state.seq } : null;
  const commit = await o.getJson<S3Commit>(COMMIT);
  const rolling = commit ? null : await o.getJson<S3RollbackJournal>(ROLLBACK);
  const p: Omit<DestInProgress, 'lines'> | null = commit
    ? { kind: 'ingest', shipmentId: commit.shipment, seq: commit.state.seq, from, started: null, phase: 'install', running: false }
    : rolling
      ? { kind: 'rollback', shipmentId: rolling.to.shipment, seq: rolling.to.seq, from, started: null, phase: 'restore', running: false }
      : null;
  return p ? { ...p, lines: inProgressLines(p, o.place.url) } : null;
}
