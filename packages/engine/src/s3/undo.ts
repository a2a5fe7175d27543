import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { BrickpostError } from '@brickpost/manifest';
import { failpoint } from '../io/failpoint.js';
import { eachLimited, type Objects } from './objects.js';
import { openTree, PARALLEL, ROLLBACK, STATE, TREES, treeKey, UNDO, undoKey, type S3State } from './state.js';

/**
 * Undo of an object storage destination (README "Object storage"). Before
 * step 4 of an ingest replaces or deletes an object of the old tree, it is
 * copied on the server to `PREFIX/.brickpost/undo/SEQ/PATH` (SEQ: the
 * shipment being applied); the trees of the shipments rollback can return
 * to stay under trees/. A rollback undoes one shipment at a time, newest
 * first: it copies each undo object back to its key, deletes the objects
 * the shipment added (in its tree, not in the previous one), writes the
 * state without it, then removes its undo objects and tree. Every step can
 * be done again, and `rollback.json` stands from the first change to the
 * last, so a rollback killed anywhere is finished by the next command on
 * the prefix.
 */

/** The rollback journal: the shipment rolled back to, and the one it started from. */
export interface S3RollbackJournal {
  to: { shipment: string; seq: number };
  from: { shipment: string; seq: number };
}

/**
 * Copies to `undo` every object of the old tree (attached as `old`) that the
 * commit replaces (it has a staged object under `staged`) or deletes (the
 * new tree lacks it). Objects already copied there by an interrupted run
 * are not copied again: the first copy holds the old object, and nothing
 * was installed before every copy was made. An object of the old tree that
 * is gone (deleted by hand) has nothing to keep. Returns what the undo of
 * this shipment holds.
 */
export async function saveUndo(o: Objects, db: Database.Database, staged: string, undo: string): Promise<{ objects: number; bytes: number }> {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS replaced (path TEXT PRIMARY KEY)');
  db.exec('CREATE TEMP TABLE IF NOT EXISTS saved (path TEXT PRIMARY KEY)');
  await fill(db, 'replaced', o.list(staged), staged.length);
  await fill(db, 'saved', o.list(undo), undo.length);
  const affected = 'FROM old.files g WHERE (g.path NOT IN (SELECT path FROM main.files) OR g.path IN (SELECT path FROM temp.replaced))';
  const total = db.prepare(`SELECT count(*) AS objects, coalesce(sum(g.size), 0) AS bytes ${affected}`).get() as { objects: number; bytes: number };
  const todo = db.prepare(`SELECT g.path, g.size ${affected} AND g.path NOT IN (SELECT path FROM temp.saved)`).iterate() as IterableIterator<{
    path: string;
    size: number;
  }>;
  await eachLimited(todo, PARALLEL, async ({ path, size }) => {
    try {
      await o.copy(path, undo + path, size);
    } catch (e) {
      if (!isMissingObject(e)) throw e;
    }
    failpoint('s3-undo');
  });
  return total;
}

/** Records the paths below `cut` characters of a listing in a temp table, a transaction per 1000. */
async function fill(db: Database.Database, table: string, list: AsyncIterable<{ rel: string }>, cut: number): Promise<void> {
  const add = db.prepare(`INSERT OR IGNORE INTO temp.${table} (path) VALUES (?)`);
  const many = db.transaction((paths: string[]) => {
    for (const p of paths) add.run(p);
  });
  const batch: string[] = [];
  for await (const { rel } of list) {
    batch.push(rel.slice(cut));
    if (batch.length >= 1000) many(batch.splice(0));
  }
  many(batch);
}

/** True when an object storage call failed because the object is not there (the bucket is). */
function isMissingObject(e: unknown): boolean {
  const cause = (e instanceof BrickpostError ? e.cause : e) as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return cause?.name === 'NoSuchKey' || cause?.name === 'NotFound' || (cause?.name !== 'NoSuchBucket' && cause?.$metadata?.httpStatusCode === 404);
}

/**
 * Removes the undo objects and trees the state no longer needs: undo of
 * shipments without `undo` in the history, trees other than the current
 * one and those rollback can return to. Also what a crash left of a
 * shipment rolled back or pruned. Lists only the SEQ folders of undo/.
 */
export async function pruneUndo(o: Objects, state: S3State): Promise<void> {
  const kept = new Set(state.history.filter((h) => h.undo).map((h) => undoKey(h.seq)));
  for await (const p of o.folders(UNDO)) if (!kept.has(p)) await o.deleteMany(keysOf(o.list(p)));
  const trees = new Set([state.tree, ...reachable(state).map((h) => treeKey(h.shipment))]);
  const gone: string[] = [];
  for await (const { rel } of o.list(TREES)) if (!trees.has(rel)) gone.push(rel);
  await o.deleteMany(gone);
}

/** The applied shipments rollback can return to (every later one keeps its undo), newest first, the current one excluded. */
export function reachable(state: S3State): S3State['history'] {
  const out: S3State['history'] = [];
  for (let i = state.history.length - 1; i > 0 && state.history[i]!.undo; i--) out.push(state.history[i - 1]!);
  return out;
}

/**
 * Rolls the prefix back to `j.to`, one shipment at a time from wherever the
 * state is (a run interrupted before finishes here), then removes what is
 * no longer kept and the journal. The caller wrote the journal.
 */
export async function runRollback(o: Objects, j: S3RollbackJournal, scratch: string, onStep: (undone: S3State['history'][number]) => void): Promise<S3State> {
  for (;;) {
    const state = await o.getJson<S3State>(STATE);
    if (!state) throw new BrickpostError('IO', `${o.place.url}: .brickpost/state.json is gone in the middle of a rollback`);
    const at = state.history.findIndex((h) => h.shipment === j.to.shipment);
    if (at < 0 || at === state.history.length - 1) {
      await pruneUndo(o, state);
      await o.delete(ROLLBACK);
      return state;
    }
    const cur = state.history[state.history.length - 1]!;
    const prev = state.history[state.history.length - 2]!;
    if (!cur.undo)
      throw new BrickpostError('IO', `${o.place.url}: the undo objects of shipment ${cur.shipment} (seq ${cur.seq}) are gone in the middle of a rollback`);
    await undoOne(o, state, cur, prev, scratch);
    onStep(cur);
  }
}

/** Undoes the shipment the state holds (`cur`), returning the prefix to `prev`'s tree. */
async function undoOne(o: Objects, state: S3State, cur: S3State['history'][number], prev: S3State['history'][number], scratch: string): Promise<void> {
  const undo = undoKey(cur.seq);
  const curFile = join(scratch, `rollback-${cur.seq}.sqlite`);
  const prevFile = join(scratch, `rollback-${prev.seq}.sqlite`);
  if (!(await o.getFile(state.tree, curFile)) || !(await o.getFile(treeKey(prev.shipment), prevFile)))
    throw new BrickpostError('IO', `${o.place.url}: the tree of shipment ${cur.shipment} or ${prev.shipment} is gone from .brickpost/trees/`);
  await eachLimited(o.list(undo), PARALLEL, async ({ rel, size }) => {
    await o.copy(rel, rel.slice(undo.length), size);
    failpoint('s3-rollback-restore');
  });
  const db = openTree(curFile);
  try {
    db.prepare('ATTACH DATABASE ? AS prev').run(prevFile);
    await o.deleteMany(db.prepare('SELECT path FROM main.files WHERE path NOT IN (SELECT path FROM prev.files)').pluck().iterate() as IterableIterator<string>);
  } finally {
    db.close();
  }
  failpoint('s3-rollback-delete');
  await o.putJson(STATE, {
    ...state,
    shipment: prev.shipment,
    seq: prev.seq,
    tree: treeKey(prev.shipment),
    history: state.history.slice(0, -1),
  } satisfies S3State);
  failpoint('s3-rollback-state');
  await o.deleteMany(keysOf(o.list(undo)));
}

export async function* keysOf(list: AsyncIterable<{ rel: string }>): AsyncGenerator<string> {
  for await (const { rel } of list) yield rel;
}
