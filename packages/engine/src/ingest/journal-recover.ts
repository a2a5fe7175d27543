import { existsSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BrickpostError, isBrickpostError, quote } from '@brickpost/manifest';
import type { RecoverSummary } from '../api/recover.js';
import { commandLine } from '../io/command-line.js';
import { salvageTables } from '../io/salvage.js';
import { setAside } from '../io/set-aside.js';
import { UNDO_KEEP } from './commit.js';
import { DestDb } from './dest-db.js';
import { dropUndoFiles } from './undo-db.js';
import { markerFile, readMarker, removeMarker } from './marker.js';
import { DestFolder, realDest } from './state.js';

/**
 * Recovers a destination's journal (`brickpost journal recover DEST`),
 * DEST's lock held: a damaged DEST/.brickpost/journal.sqlite is set aside
 * (journal.sqlite.damaged-TIME, never deleted), a new one is made, and what
 * can still be read of its lasting tables is copied (`journal`: the apply
 * or rollback in progress; `ops`: what each kept shipment did, for
 * rollback; `undo_*`: the chunk lists of replaced files; the scratch
 * tables are remade by every ingest). DEST's files
 * and state.json are not touched.
 *
 * An apply or rollback in progress is kept only with every one of its
 * steps, so the next ingest or rollback finishes it; otherwise it is
 * dropped and the summary says so. Lost steps of applied shipments mean
 * rollback can no longer go back past them (their undo areas stay).
 * An intact journal is left alone unless `force`.
 * @throws BrickpostError NOT_FOUND (no destination or journal), LOCKED, FOREIGN_DATABASE, PERMISSION, NO_SPACE, IO
 */
export async function recoverJournal(destPath: string, opts: { force?: boolean } = {}): Promise<RecoverSummary> {
  const dest = await realDest(destPath);
  const folder = new DestFolder(dest);
  const file = join(folder.state, 'journal.sqlite');
  if (!existsSync(file)) {
    throw new BrickpostError('NOT_FOUND', `${quote(destPath)} has no destination journal (${quote(file)})`, {
      path: file,
      hint: "give the folder you passed to 'brickpost ingest'",
    });
  }
  await folder.check();
  const unlock = await folder.lock('journal recover');
  try {
    const found = diagnose(folder.state, file);
    const summary: RecoverSummary = { file, intact: found === 'intact', setAside: [], kept: [], rebuilt: [], lost: [], pending: null };
    if (found === 'intact' && opts.force !== true) return summary;
    summary.setAside = await setAside(file);
    const db = new DestDb(folder.state);
    let closed = false;
    try {
      summary.kept = found === 'not-sqlite' ? [] : salvageTables(summary.setAside[0]!, db.db, ['journal', 'ops', ...UNDO_TABLES]);
      const [journal, ops] = [summary.kept.find((t) => t.table === 'journal'), summary.kept.find((t) => t.table === 'ops')];
      const j = db.pending();
      const undoWhole = UNDO_TABLES.every((name) => {
        const t = summary.kept.find((x) => x.table === name);
        return t !== undefined && t.error === null && t.lost === 0;
      });
      // Without every chunk list, a rollback would leave out the files kept by chunks: the steps go too.
      if (!undoWhole) forgetChunkLists(db, summary, existsSync(join(folder.state, 'undo-chunks')));
      const whole = ops !== undefined && ops.error === null && ops.lost === 0 && undoWhole;
      if (j && whole) {
        summary.pending = { kind: j.kind, shipmentId: j.shipment };
        summary.rebuilt.push({
          what: `the ${j.kind === 'apply' ? 'commit' : 'rollback'} of shipment ${j.shipment} in progress`,
          from: `the damaged journal; the next ${commandLine([j.kind === 'apply' ? 'ingest' : 'rollback'])} on this destination finishes it`,
        });
      } else if (j || journal === undefined || journal.error !== null || (journal.lost ?? 1) > 0) {
        db.setJournal(null);
        summary.pending = j ? { kind: j.kind, shipmentId: j.shipment } : 'unknown';
        summary.lost.push({
          what: j
            ? `the steps of the ${j.kind === 'apply' ? 'commit' : 'rollback'} of shipment ${j.shipment} that was in progress`
            : 'whether a commit or rollback was in progress',
          meaning: `if one was, ${quote(dest)} may hold part of it: ingest the same drive again (it plans against what the destination holds), then check it with ${commandLine(['report', dest])}`,
        });
      }
      // A job the marker names cannot be finished without every step: the marker goes, and the summary says what that means.
      const marker = await readMarker(folder);
      if (marker && !whole) {
        await removeMarker(folder);
        summary.lost.push({
          what: `the ${marker.kind === 'ingest' ? 'ingest' : 'rollback'} to shipment ${marker.shipment} (#${marker.seq}) that ${quote(markerFile(folder))} marked as under way`,
          meaning: `${quote(dest)} may hold part of it: ingest the same drive again (it plans against what the destination holds), then check it with ${commandLine(['report', dest])}`,
        });
      }
      await lostUndo(folder, db, summary);
      closed = true;
      db.close();
    } finally {
      if (!closed) db.db.close();
    }
    return summary;
  } finally {
    await unlock();
  }
}

/** The journal's tables of the chunk undo store (undo-db.ts), parents first. */
const UNDO_TABLES = ['undo_chunks', 'undo_files', 'undo_refs'] as const;

/** Drops the steps of every shipment and the chunk lists, when a chunk list was lost: rollback cannot go back at all. */
function forgetChunkLists(db: DestDb, summary: RecoverSummary, hadStore: boolean): void {
  const shipments = db.db.prepare('SELECT DISTINCT shipment FROM undo_files UNION SELECT DISTINCT shipment FROM ops').pluck().all() as string[];
  for (const s of shipments) {
    db.dropOps(s);
    dropUndoFiles(db, s);
  }
  if (hadStore)
    summary.lost.push({
      what: "the chunk lists of replaced files (the chunk undo store's record)",
      meaning:
        "'brickpost rollback' and 'extract --at' can no longer go back before the current shipment; the chunks are removed by the next ingest; ingesting goes on as before",
    });
}

/** The shipments whose undo area is kept but whose steps were lost: rollback stops short of them. */
async function lostUndo(folder: DestFolder, db: DestDb, summary: RecoverSummary): Promise<void> {
  const state = await folder.readState();
  if (!state) return;
  const keep = state.keepUndo ?? UNDO_KEEP;
  for (const a of state.applied.slice(1).slice(-keep)) {
    if (db.hasOps(a.shipment) || !(await stat(folder.undo(a.shipment)).catch(() => null))) continue;
    summary.lost.push({
      what: `the steps of shipment ${a.shipment} (seq ${a.seq})`,
      meaning: `'brickpost rollback' can no longer go back before it; the files it replaced stay in ${quote(folder.undo(a.shipment))}; ingesting goes on as before`,
    });
  }
}

/** What the journal is: intact, damaged, or not SQLite; another program's database is refused. */
function diagnose(stateDir: string, file: string): 'intact' | 'damaged' | 'not-sqlite' {
  try {
    const db = new DestDb(stateDir);
    try {
      return db.db.pragma('quick_check', { simple: true }) === 'ok' ? 'intact' : 'damaged';
    } finally {
      db.db.close();
    }
  } catch (e) {
    if (isBrickpostError(e, 'DATABASE_DAMAGED')) return 'damaged';
    if (isBrickpostError(e, 'FOREIGN_DATABASE') && !readFileSync(file).subarray(0, 16).equals(Buffer.from('SQLite format 3\0', 'latin1'))) return 'not-sqlite';
    throw e;
  }
}
