import { lstatSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { WHOLE_FILE_MAX } from '../chunk/index.js';
import { fsPath } from '../io/fs-path.js';
import { pathFromDb, type DestDb } from './dest-db.js';
import type { DestFolder } from './state.js';
import { Compactor, Prestored } from './undo-compact.js';
import { chunkPath, storeDir } from './undo-store.js';

/** Files smaller than this are turned into chunks after the commit, as before: many small files cost more to track than to read twice. */
const PRESTORE_MIN = WHOLE_FILE_MAX;
/** Bytes of files stored ahead at most: the chunk lists wait in memory until the commit (32 bytes a chunk of about 1 MiB). */
const PRESTORE_MAX = 64 * 2 ** 30;

/**
 * The large regular files of DEST that shipment `shipment` retires (its
 * ops are planned), to be stored by prestoreUndo, in the order of their
 * ops (the order the staging walk meets them).
 */
export function prestoreFor(folder: DestFolder, db: DestDb, shipment: string): { pre: Prestored; wanted: Array<{ n: number; rel: string }> } {
  const pre = new Prestored(shipment);
  const wanted: Array<{ n: number; rel: string }> = [];
  let bytes = 0;
  for (const o of db.ops(shipment, 'retire')) {
    const rel = pathFromDb(o.path);
    const size = sizeOfFile(join(folder.dest, rel));
    if (size < PRESTORE_MIN || bytes + size > PRESTORE_MAX) continue;
    bytes += size;
    wanted.push({ n: o.n, rel });
    pre.expect(rel, o.n);
  }
  return { pre, wanted };
}

/**
 * Stores the chunks of the files prestoreFor chose into the chunk undo
 * store, while the shipment is being staged: the file a changed file
 * replaces is read, cut, hashed and compressed on the chunk pipeline's
 * threads while the new version is built, rather than after the commit.
 * The ids the pipeline computes are under the dataset's chunk `key`: the
 * staging takes a chunk of such a file as checked when it reads it at an
 * offset stored here with that id and the file has not changed since
 * (Prestored.readUpTo: as soon as the reading passed the chunk, so a
 * large file is staged while it is read, not after). Nothing is recorded: compactUndo records each file
 * after the commit moved it into the undo area, if it is still that file
 * (same inode, size and mtime); otherwise it reads the file as before. A
 * chunk file written here and never recorded (the ingest failed or was
 * killed) is removed by discardPrestored or by the next sweep. `stop` is
 * asked between batches: true ends the work (the ingest failed). Never
 * rejects: a store that cannot be written now leaves the rest to
 * compactUndo, which reports it.
 */
export async function prestoreUndo(
  folder: DestFolder,
  db: DestDb,
  { pre, wanted }: ReturnType<typeof prestoreFor>,
  key: Buffer,
  stop: () => boolean,
): Promise<Prestored> {
  if (wanted.length === 0) return pre;
  const c = new Compactor(folder, db, null, stop, key);
  try {
    await rm(join(storeDir(folder), 'tmp'), { recursive: true, force: true });
    for (const w of wanted) {
      if (stop()) break;
      await c.prestore(pre, w.n, join(folder.dest, w.rel));
      pre.settled(w.rel);
    }
  } catch {
    // Unreadable, or the store cannot be written now: compactUndo does the rest after the commit, and says so if it cannot.
  } finally {
    pre.settleAll();
  }
  for (const [hex, chunk] of c.fresh) pre.chunks.set(hex, chunk);
  await c.close().catch(() => undefined);
  return pre;
}

/** Removes the chunk files prestoreUndo wrote, none of them recorded (the ingest did not commit). */
export async function discardPrestored(folder: DestFolder, pre: Prestored | null): Promise<void> {
  for (const hex of pre?.chunks.keys() ?? []) await rm(chunkPath(folder, hex), { force: true }).catch(() => undefined);
}

/** The size of the regular file at `path`, or -1 for anything else. */
function sizeOfFile(path: string): number {
  try {
    const st = lstatSync(fsPath(path));
    return st.isFile() ? st.size : -1;
  } catch {
    return -1;
  }
}
