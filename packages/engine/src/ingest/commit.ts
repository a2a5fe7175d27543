import { lstatSync, mkdirSync, renameSync, rmdirSync, type Stats } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { quote, type DirRecord, type ManifestRecord } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { failpoint } from '../io/failpoint.js';
import { CAN_SYNC_FS, syncDir, syncFilesystem } from '../io/sync.js';
import type { DestDb, JournalRow } from './dest-db.js';
import { FolderChain } from './folder-chain.js';
import { setMeta, swapped } from './meta.js';
import type { DestFolder, DestState } from './state.js';

/** How many applied shipments keep their undo area by default (rollback reaches back that far). */
export const UNDO_KEEP = 3;

interface OpRow {
  n: number;
  kind: 'retire' | 'mkdir' | 'install' | 'meta';
  path: string;
  mode: number | null;
  mtime: string | null;
  old_mode: number | null;
  old_mtime: string | null;
}

/**
 * Runs (or, after a crash, finishes) the commit of shipment j.shipment,
 * whose ops the planner wrote, in phases recorded in the journal:
 *
 *   retire   DEST's entries that are replaced or deleted move into
 *            undo/ID/N (one rename each; a folder moves whole);
 *   install  new folders are created, staged files move in by rename,
 *            entries kept in place get their new mode and mtime
 *            (through a handle that does not follow links: meta.ts);
 *   dirs     every folder gets the mode and mtime the manifest gives
 *            (deepest first, as the renames above touched them).
 *
 * Every step is idempotent (a rename whose source is gone was done), so a
 * run after a crash repeats the phase it was in. The file system is synced
 * before each phase change is recorded. Before the journal says `retire`
 * DEST is untouched; after `dirs` completes the state file is written and the
 * journal cleared.
 * @throws BrickpostError PERMISSION, IO
 */
export async function runApply(folder: DestFolder, db: DestDb, j: JournalRow, dirs: () => AsyncIterable<ManifestRecord>, keep: number): Promise<void> {
  const staged = folder.staging(j.shipment);
  const undo = folder.undo(j.shipment);
  const ops = (phase: 'retire' | 'install'): OpRow[] =>
    db.db
      .prepare(`SELECT n, kind, path, mode, mtime, old_mode, old_mtime FROM ops WHERE shipment = ? AND kind ${phase === 'retire' ? "= 'retire'" : "!= 'retire'"} ORDER BY n`)
      .all(j.shipment) as OpRow[];
  try {
    if (j.phase === 'retire') {
      await mkdir(undo, { recursive: true, mode: 0o700 });
      for (const o of ops('retire')) {
        moveIfPresent(join(folder.dest, o.path), join(undo, String(o.n)));
        failpoint('apply-retire');
      }
      j = await advance(folder, db, j, 'install');
    }
    if (j.phase === 'install') {
      for (const o of ops('install')) {
        const target = join(folder.dest, o.path);
        if (o.kind === 'mkdir') mkdirIfAbsent(target);
        else if (o.kind === 'install') moveIfPresent(join(staged, String(o.n)), target);
        else setMeta(target, o.mode!, o.mtime!, 'file');
        failpoint('apply-install');
      }
      j = await advance(folder, db, j, 'dirs');
    }
    failpoint('apply-dirs');
    await applyDirMeta(db, folder.dest, dirs());
    failpoint('apply-state');
    await finish(folder, db, j, keep);
  } catch (e) {
    throw toEnvironmentError(e, 'commit failed (run ingest again to finish it)');
  }
}

/**
 * Runs (or finishes) the rollback of shipment j.shipment, the last one
 * applied: the reverse of runApply, in phases
 *
 *   unstage  what the shipment installed moves out (to undo/ID/out/N),
 *            folders it created are removed, kept entries get their old
 *            mode and mtime back;
 *   restore  what it retired moves back from undo/ID/N;
 *   dirs     folders get the mode and mtime of the tree rolled back to.
 * @throws BrickpostError PERMISSION, IO
 */
export async function runRollback(folder: DestFolder, db: DestDb, j: JournalRow, dirs: () => AsyncIterable<ManifestRecord>, keep: number): Promise<void> {
  const undo = folder.undo(j.shipment);
  const out = join(undo, 'out');
  const ops = db.db.prepare('SELECT n, kind, path, mode, mtime, old_mode, old_mtime FROM ops WHERE shipment = ? ORDER BY n DESC').all(j.shipment) as OpRow[];
  try {
    if (j.phase === 'unstage') {
      await mkdir(out, { recursive: true, mode: 0o700 });
      for (const o of ops) {
        const target = join(folder.dest, o.path);
        if (o.kind === 'install') moveIfPresent(target, join(out, String(o.n)));
        else if (o.kind === 'mkdir') removeDir(target, join(out, String(o.n)));
        // An entry changed locally since (a link, a folder) is left as it is: never followed.
        else if (o.kind === 'meta') setMeta(target, o.old_mode!, o.old_mtime!, 'file', true);
        failpoint('rollback-unstage');
      }
      j = await advance(folder, db, j, 'restore');
    }
    if (j.phase === 'restore') {
      for (const o of ops) {
        if (o.kind !== 'retire') continue;
        const target = join(folder.dest, o.path);
        const from = join(undo, String(o.n));
        if (moveIfPresent(from, target) && o.old_mode !== null && o.old_mtime !== null) setMeta(target, o.old_mode, o.old_mtime, 'file', true);
        failpoint('rollback-restore');
      }
      j = await advance(folder, db, j, 'dirs');
    }
    // What rollback put back is DEST's own (a link where the tree has a folder, say): left as it is.
    await applyDirMeta(db, folder.dest, dirs(), true);
    await rm(undo, { recursive: true, force: true });
    db.dropOps(j.shipment);
    await finish(folder, db, j, keep);
  } catch (e) {
    throw toEnvironmentError(e, 'rollback failed (run rollback again to finish it)');
  }
}

async function advance(folder: DestFolder, db: DestDb, j: JournalRow, phase: string): Promise<JournalRow> {
  if (CAN_SYNC_FS) await syncFilesystem(folder.dest);
  else await syncDir(folder.dest);
  const next = { ...j, phase };
  db.setJournal(next);
  return next;
}

async function finish(folder: DestFolder, db: DestDb, j: JournalRow, keep: number): Promise<void> {
  const state = JSON.parse(j.state) as DestState;
  await folder.writeState(state);
  db.setJournal(null);
  await rm(folder.staging(j.shipment), { recursive: true, force: true });
  await pruneUndo(folder, db, state, keep);
}

/** Renames from → to when from exists; false when it was already moved. */
function moveIfPresent(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

function lstatIfPresent(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function mkdirIfAbsent(p: string): void {
  try {
    mkdirSync(p, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    if (!lstatSync(p).isDirectory()) throw toEnvironmentError(e, `${quote(p)} is in the way of a folder`);
  }
}

/** Removes a folder a shipment created; one holding other entries (added locally) moves out whole instead. */
function removeDir(p: string, outPath: string): void {
  try {
    rmdirSync(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return void moveIfPresent(p, outPath);
    throw e;
  }
}

/**
 * Gives every folder of a tree its mode and mtime, deepest first, so a
 * folder without owner write or search permission is set after everything
 * below it. An entry that is not a folder is refused (UNSAFE_ENTRY), or
 * with `lenient` left alone; it is never followed, and neither is anything
 * below it (FolderChain).
 */
export async function applyDirMeta(db: DestDb, dest: string, records: AsyncIterable<ManifestRecord>, lenient = false): Promise<void> {
  const sql = db.db;
  sql.exec('CREATE TEMP TABLE IF NOT EXISTS dirmeta (path TEXT PRIMARY KEY, mode INTEGER, mtime TEXT) WITHOUT ROWID; DELETE FROM dirmeta;');
  const put = sql.prepare('INSERT OR REPLACE INTO dirmeta (path, mode, mtime) VALUES (?, ?, ?)');
  sql.exec('BEGIN');
  try {
    const chain = new FolderChain();
    for await (const r of records) {
      if (r.t !== 'dir') continue;
      const p = (r as DirRecord).p;
      const st = chain.parentReal(p) ? lstatIfPresent(join(dest, p)) : null;
      chain.enter(p, st?.isDirectory() === true);
      if (st?.isDirectory()) put.run(p, r.mode, r.mtime);
      else if (st && !lenient) throw swapped(join(dest, p), 'dir');
    }
    sql.exec('COMMIT');
  } catch (e) {
    if (sql.inTransaction) sql.exec('ROLLBACK');
    throw e;
  }
  for (const d of sql.prepare('SELECT path, mode, mtime FROM dirmeta ORDER BY path DESC').iterate() as IterableIterator<{ path: string; mode: number; mtime: string }>) {
    setMeta(join(dest, d.path), d.mode, d.mtime, 'dir', lenient);
  }
  sql.exec('DELETE FROM dirmeta');
}

/** Keeps the undo areas (and ops) of the last `keep` shipments applied; removes older ones. */
export async function pruneUndo(folder: DestFolder, db: DestDb, state: DestState, keep: number): Promise<void> {
  const live = new Set(keep > 0 ? state.applied.slice(-keep).map((a) => a.shipment) : []);
  const root = join(folder.state, 'undo');
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!live.has(name)) {
      await rm(join(root, name), { recursive: true, force: true });
    }
  }
  const shipments = db.db.prepare('SELECT DISTINCT shipment FROM ops').pluck().all() as string[];
  for (const s of shipments) if (!live.has(s)) db.dropOps(s);
}
