import { join } from 'node:path';
import { failpoint } from '../io/failpoint.js';
import { eachLimited, type Objects } from './objects.js';
import { COMMIT, keptUndo, limitUndo, openTree, PARALLEL, STAGING, STATE, undoKey, type S3Commit } from './state.js';
import { keysOf, pruneUndo, saveUndo } from './undo.js';

/**
 * Finishes a committed ingest, from the start or from wherever a crash
 * stopped it (each step can be done again): when undo is kept, every
 * object of the old tree about to be replaced or deleted is first copied to
 * undo/SEQ/ (undo.ts), and the journal says so (undoSaved); then every staged object is copied to its key, the
 * objects of the old tree that the new one lacks are deleted, the new state
 * is written, and the staging objects, the journal, and the undo objects
 * and trees no longer kept go.
 */
export async function finishCommit(o: Objects, c: S3Commit, scratch: string): Promise<{ installed: number; retired: number }> {
  const staged = `${STAGING}${c.shipment}/`;
  let state = c.state;
  let retired = 0;
  const oldFile = join(scratch, 'old-tree.sqlite');
  const newFile = join(scratch, 'new-tree.sqlite');
  const db = c.oldTree && (await o.getFile(c.oldTree, oldFile)) && (await o.getFile(c.state.tree, newFile)) ? openTree(newFile) : null;
  try {
    db?.prepare('ATTACH DATABASE ? AS old').run(oldFile);
    if (db && keptUndo(c.state) > 0 && c.undoSaved !== true) {
      const undo = await saveUndo(o, db, staged, undoKey(c.state.seq));
      state = { ...state, history: state.history.map((h, i) => (i === state.history.length - 1 ? { ...h, undo } : h)) };
      // From here on the old objects are kept: a run after a crash must not copy again what it has since replaced.
      await o.putJson(COMMIT, { ...c, state, undoSaved: true } satisfies S3Commit);
      failpoint('s3-undo-saved');
    }
    let installed = 0;
    await eachLimited(o.list(staged), PARALLEL, async ({ rel, size }) => {
      await o.copy(rel, rel.slice(staged.length), size);
      installed++;
      failpoint('s3-apply');
    });
    if (db) {
      retired = db.prepare('SELECT count(*) FROM old.files WHERE path NOT IN (SELECT path FROM main.files)').pluck().get() as number;
      await o.deleteMany(
        db.prepare('SELECT path FROM old.files WHERE path NOT IN (SELECT path FROM main.files)').pluck().iterate() as IterableIterator<string>,
      );
    }
    state = limitUndo(state);
    await o.putJson(STATE, state);
    failpoint('s3-state');
    await o.deleteMany(keysOf(o.list(staged)));
    await pruneUndo(o, state);
    await o.delete(COMMIT);
    return { installed, retired };
  } finally {
    db?.close();
  }
}
