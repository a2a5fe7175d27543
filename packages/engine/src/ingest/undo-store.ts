import { createHash } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, lstatSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BrickpostError, fromBytes, quote } from '@brickpost/manifest';
import { decodeFrame } from '../chunk/codec.js';
import { toEnvironmentError } from '../io/errors.js';
import { failpoint } from '../io/failpoint.js';
import { fsPath } from '../io/fs-path.js';
import { setTimesPath } from '../io/times.js';
import { pathFromDb, type DestDb } from './dest-db.js';
import type { DestFolder } from './state.js';
import { dropUndoFiles, forgetUnreferenced, refsOf, undoFilesOf, type UndoFileRow } from './undo-db.js';
import { removeTree } from '../io/remove-tree.js';

/**
 * The chunk undo store. A shipment's commit moves what it replaces or
 * deletes into undo/ID/N (one rename, commit.ts); once the commit is
 * recorded, each regular file there is cut into content-defined chunks
 * (the engine's chunker), each chunk kept once, compressed, in
 *
 *     DEST/.brickpost/undo-chunks/HH/HASH   one zstd frame of the chunk's bytes
 *                                           (HASH: SHA-256 of the bytes, hex;
 *                                           HH: its first two digits)
 *
 * and the file recorded as its list of chunks in the journal (undo-db.ts);
 * then the whole file is removed. A file that changes a little between
 * shipments costs the chunks that changed; equal files, and equal parts of
 * files, cost nothing more. Files with extended attributes or ACLs, another
 * owner, more than one link or holes (sparse) stay whole in undo/ID/N, as
 * do links and special files: rollback reads both forms, and so undo areas written
 * before the store existed roll back as they are (the next commit turns
 * their files into chunks).
 *
 * Turning files into chunks is undo-compact.ts. Crash safety: a chunk file
 * is written under undo-chunks/tmp and renamed into place, and its row
 * written once it is synced; a file's row is written with or after all its
 * chunks' rows; the whole file is removed after its row. A
 * kill leaves either the whole file (kept, done again next time), or both
 * (the row wins: the file is removed), and at worst chunks no row names,
 * which the sweep removes. Pruning forgets rows first, files after.
 */

const STORE = 'undo-chunks';
/** The zstd level of the store's chunk files. */
export const UNDO_LEVEL = 3;

/** DEST/.brickpost/undo-chunks. */
export function storeDir(folder: DestFolder): string {
  return join(folder.state, STORE);
}

/** The file of chunk `hex` in the store. */
export function chunkPath(folder: DestFolder, hex: string): string {
  return join(storeDir(folder), hex.slice(0, 2), hex);
}

/** The names in a folder, as escaped strings (a name that is not UTF-8 survives); none when it cannot be read. */
function names(dir: string): string[] {
  try {
    return readdirSync(fsPath(dir), { encoding: 'buffer' }).map(fromBytes);
  } catch {
    return [];
  }
}

/**
 * Writes the content of a file kept by chunks to `to` (created or
 * replaced), each chunk checked against its hash, synced, with its mode
 * and mtime.
 * @throws BrickpostError CHUNK_MISMATCH, FILE_MISSING (the store lost a chunk), IO
 */
export function writeKept(folder: DestFolder, db: DestDb, row: UndoFileRow, to: string): void {
  try {
    writeKeptFile(folder, db, row, to);
  } catch (e) {
    // Writes through a descriptor name no path: the file being rebuilt is named here.
    throw toEnvironmentError(e, '', { path: to });
  }
}

function writeKeptFile(folder: DestFolder, db: DestDb, row: UndoFileRow, to: string): void {
  const fd = openSync(fsPath(to), 'w', 0o600);
  try {
    let written = 0;
    for (const ref of refsOf(db, row)) {
      const hex = ref.hash.toString('hex');
      let frame: Buffer;
      try {
        frame = readFileSync(chunkPath(folder, hex));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw toEnvironmentError(e, 'cannot read the undo store', { path: chunkPath(folder, hex) });
        throw new BrickpostError('FILE_MISSING', `the undo store of ${quote(folder.dest)} lacks chunk ${hex.slice(0, 16)}… of a kept file`, {
          path: chunkPath(folder, hex),
          hint: `the files it kept cannot be put back; 'brickpost history ${folder.dest}' shows what else is kept`,
        });
      }
      const raw = decodeFrame(frame, ref.len);
      if (!createHash('sha256').update(raw).digest().equals(ref.hash)) {
        throw new BrickpostError('CHUNK_MISMATCH', `chunk ${hex.slice(0, 16)}… of the undo store of ${quote(folder.dest)} is damaged`, {
          path: chunkPath(folder, hex),
        });
      }
      for (let at = 0; at < raw.length;) at += writeSync(fd, raw, at, raw.length - at);
      written += raw.length;
    }
    if (written !== row.size) throw new BrickpostError('CHUNK_MISMATCH', `a kept file of ${quote(folder.dest)} rebuilds to ${written} bytes, not ${row.size}`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(fsPath(to), row.mode);
  setTimesPath(to, row.mtime);
}

/**
 * Puts back, as whole files under undo/ID/N, what op `n` of shipment `id`
 * retired and the store keeps by chunks, so rollback can move it back in
 * one rename. Files already back (or already moved on) are skipped.
 * @throws what writeKept throws
 */
export function rebuildEntry(folder: DestFolder, db: DestDb, id: string, n: number): void {
  const base = join(folder.undo(id), String(n));
  const tmp = join(folder.undo(id), 'rebuild');
  for (const row of undoFilesOf(db, id, n)) {
    const rel = pathFromDb(row.rel);
    const at = rel === '' ? base : join(base, rel);
    if (rel === '' ? exists(base) : !exists(join(at, '..')) || exists(at)) continue;
    writeKept(folder, db, row, tmp);
    renameSync(fsPath(tmp), fsPath(at));
    failpoint('undo-rebuild');
  }
}

function exists(p: string): boolean {
  try {
    lstatSync(fsPath(p));
    return true;
  } catch {
    return false;
  }
}

/** After op `n`'s entry moved back into DEST: its chunk lists are no longer needed. */
export function restored(db: DestDb, id: string, n: number): void {
  dropUndoFiles(db, id, n);
}

/**
 * Removes the chunks no kept file names: rows first, then files, then
 * files no row names (left by a crash), except those in `spare` (hex
 * hashes of chunks written for files about to be recorded). Returns the
 * bytes freed.
 * @throws BrickpostError IO
 */
export async function sweepStore(folder: DestFolder, db: DestDb, spare?: ReadonlyMap<string, unknown>): Promise<number> {
  forgetUnreferenced(db);
  const root = storeDir(folder);
  let freed = 0;
  const known = db.db.prepare('SELECT 1 FROM undo_chunks WHERE hash = ?');
  for (const sub of await readdir(root).catch(() => [] as string[])) {
    if (sub === 'tmp' || !/^[0-9a-f]{2}$/.test(sub)) continue;
    for (const name of await readdir(join(root, sub)).catch(() => [] as string[])) {
      if (/^[0-9a-f]{64}$/.test(name) && (known.get(Buffer.from(name, 'hex')) !== undefined || spare?.has(name) === true)) continue;
      const p = join(root, sub, name);
      freed += (await lstatSafe(p)) ?? 0;
      await removeTree(p);
    }
  }
  return freed;
}

async function lstatSafe(p: string): Promise<number | null> {
  try {
    return lstatSync(p).size;
  } catch {
    return null;
  }
}

/** The bytes whole files take in the undo area of shipment `id` (what was not turned into chunks), links not followed. */
export async function wholeBytes(folder: DestFolder, id: string): Promise<number> {
  let total = 0;
  const walk = async (p: string): Promise<void> => {
    let st;
    try {
      st = lstatSync(fsPath(p));
    } catch {
      return;
    }
    if (st.isDirectory()) for (const e of names(p)) await walk(join(p, e));
    else if (st.isFile()) total += st.size;
  };
  await walk(folder.undo(id));
  return total;
}
