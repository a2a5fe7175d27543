import Database from 'better-sqlite3';
import { join } from 'node:path';
import { failpoint } from '../io/failpoint.js';
import { eachLimited, STATE_DIR, type Objects } from './objects.js';

/**
 * What an object storage destination holds, in PREFIX/.brickpost/ beside
 * the data (so any machine with the credentials can ingest the next
 * shipment):
 *
 * - `state.json`: the dataset and the shipment applied last, its tree and
 *   the shipments applied so far;
 * - `trees/SHIPMENT.sqlite`: that shipment's tree (a SQLite file): each
 *   object brickpost wrote (path below the prefix, size) and where each of
 *   its chunks is (id, offset), so an incremental shipment's held chunks
 *   and delta bases are read back from the objects;
 * - `staging/SHIPMENT/PATH`: objects of a shipment being ingested;
 * - `commit.json`: present from the commit point of an ingest until it is
 *   finished (the marker that the prefix is changing).
 */
export interface S3State {
  format: 'brickpost-s3-dest-1';
  dataset: string;
  datasetId: string;
  publisher: string;
  shipment: string;
  seq: number;
  /** The tree file of `shipment`, below the prefix. */
  tree: string;
  history: Array<{ shipment: string; seq: number; label: string; created: string; applied: string; files?: number; bytes?: number; bytesFromDrive?: number }>;
}

/** The commit journal: the new state, and the tree of the state it replaces (whose objects not in the new tree retire). */
export interface S3Commit {
  shipment: string;
  state: S3State;
  oldTree: string | null;
}

export const STATE = STATE_DIR + 'state.json';
export const COMMIT = STATE_DIR + 'commit.json';
export const STAGING = STATE_DIR + 'staging/';
export const treeKey = (shipment: string): string => `${STATE_DIR}trees/${shipment}.sqlite`;

/** Objects copied, deleted and fetched at once. */
export const PARALLEL = 8;

/** A tree file, open. */
export function openTree(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, marker INTEGER NOT NULL DEFAULT 0, digest BLOB);
CREATE INDEX IF NOT EXISTS files_digest ON files (digest);
CREATE TABLE IF NOT EXISTS chunks (id BLOB PRIMARY KEY, path TEXT NOT NULL, offset INTEGER NOT NULL, len INTEGER NOT NULL);`);
  return db;
}

/**
 * Finishes a committed ingest, from the start or from wherever a crash
 * stopped it (each step can be done again): every staged object is copied
 * to its key, the objects of the old tree that the new one lacks are
 * deleted, the new state is written, and the staging objects, the old tree
 * and the journal go.
 */
export async function finishCommit(o: Objects, c: S3Commit, scratch: string): Promise<{ installed: number; retired: number }> {
  const staged = `${STAGING}${c.shipment}/`;
  let installed = 0;
  await eachLimited(o.list(staged), PARALLEL, async ({ rel, size }) => {
    await o.copy(rel, rel.slice(staged.length), size);
    installed++;
    failpoint('s3-apply');
  });
  let retired = 0;
  if (c.oldTree) {
    const oldFile = join(scratch, 'old-tree.sqlite');
    const newFile = join(scratch, 'new-tree.sqlite');
    if ((await o.getFile(c.oldTree, oldFile)) && (await o.getFile(c.state.tree, newFile))) {
      const db = openTree(newFile);
      try {
        db.prepare('ATTACH DATABASE ? AS old').run(oldFile);
        retired = db.prepare('SELECT count(*) FROM old.files WHERE path NOT IN (SELECT path FROM main.files)').pluck().get() as number;
        await o.deleteMany(
          db.prepare('SELECT path FROM old.files WHERE path NOT IN (SELECT path FROM main.files)').pluck().iterate() as IterableIterator<string>,
        );
      } finally {
        db.close();
      }
    }
  }
  await o.putJson(STATE, c.state);
  failpoint('s3-state');
  await o.deleteMany(keysOf(o.list(staged)));
  if (c.oldTree && c.oldTree !== c.state.tree) await o.delete(c.oldTree);
  await o.delete(COMMIT);
  return { installed, retired };
}

async function* keysOf(list: AsyncIterable<{ rel: string }>): AsyncGenerator<string> {
  for await (const { rel } of list) yield rel;
}
