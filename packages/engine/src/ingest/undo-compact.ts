import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, writeSync, type BigIntStats } from 'node:fs';
import { readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as posix from '@brickpost/posix';
import { fromBytes } from '@brickpost/manifest';
import { chunkPipeline, releaseFrame, WHOLE_FILE_MAX, type ChunkPipeline, type FileChunk, type Frame } from '../chunk/index.js';
import { toEnvironmentError } from '../io/errors.js';
import { failpoint } from '../io/failpoint.js';
import { fromNative } from '../io/native.js';
import { fsPath } from '../io/fs-path.js';
import { CAN_SYNC_FS, syncDir, syncFilesystem } from '../io/sync.js';
import { dbPath, type DestDb } from './dest-db.js';
import type { DestFolder } from './state.js';
import { addRef, chunkStored, recordChunks, recordUndoFile, undoFileRecorded, type UndoFileRow } from './undo-db.js';
import { chunkPath, storeDir, UNDO_LEVEL } from './undo-store.js';
import type { FreshChunk, Prestored, PrestoreReading } from './prestored.js';

/**
 * Files turned into chunks per batch, and bytes of new chunk files per
 * batch: a batch costs one file-system sync and one transaction, where a
 * sync per chunk and a transaction per file made a shipment that retires
 * many files pay a disk flush for each.
 */
const BATCH_FILES = 512;
const BATCH_BYTES = 64 << 20;
/** Small files stored at once, and their bytes at most (one larger file goes alone). */
const STORE_FILES = 16;
const STORE_BYTES = 32 << 20;

/** A file whose chunks are written, waiting for its batch's sync and row. */
interface Turned {
  row: UndoFileRow;
  path: string;
  hashes: Buffer[];
}

export { Prestored, type FreshChunk, type PrestoredFile, type PrestoreReading } from './prestored.js';

/**
 * Turns every whole regular file left in the undo areas into chunks of the
 * chunk undo store (undo-store.ts). What cannot be (unreadable, changed
 * while read, a folder without write permission) stays whole. Returns how
 * many files were turned.
 *
 * The files are read, cut, hashed and compressed by the engine's chunk
 * pipeline (the native core's threads where it is built), and go in
 * batches: each new chunk file is written under undo-chunks/tmp and
 * renamed into place; then one sync makes the batch's chunk files
 * durable, one transaction records its chunks and files, and only then
 * are the whole files removed. A kill leaves whole files (done again next
 * time) and at worst chunk files no row names (swept).
 *
 * A file `pre` holds (stored before the commit, by the same op) that is
 * still the same inode with the same size and mtime is recorded from its
 * chunk list there; the batch's sync covers its chunk files too.
 * @throws BrickpostError IO, NO_SPACE, PERMISSION (the store cannot be written)
 */
export async function compactUndo(folder: DestFolder, db: DestDb, pre: Prestored | null = null): Promise<number> {
  const root = join(folder.state, 'undo');
  const areas = await readdir(root).catch(() => [] as string[]);
  if (areas.length === 0) return 0;
  await rm(join(storeDir(folder), 'tmp'), { recursive: true, force: true });
  const c = new Compactor(folder, db, pre);
  try {
    for (const id of areas) {
      for (const name of await readdir(join(root, id)).catch(() => [] as string[])) {
        if (!/^[0-9]+$/.test(name)) continue;
        await c.entry(id, Number(name), join(root, id, name), '');
      }
    }
    await c.flush();
  } finally {
    await c.close();
  }
  return c.count;
}

export class Compactor {
  count = 0;
  private pipeline: ChunkPipeline | null = null;
  private readonly batch: Turned[] = [];
  /** Chunks written in this batch, not yet recorded: by hex hash. */
  readonly fresh = new Map<string, FreshChunk>();
  private freshBytes = 0;
  private readonly dirs = new Set<string>();
  /** Small files being stored, and their bytes. */
  private readonly inflight = new Set<Promise<void>>();
  private inflightBytes = 0;
  /** The first error of a small file's store, thrown at the next entry or flush. */
  private failed: { e: unknown } | null = null;

  /**
   * @param stop - checked between batches of a large file: true gives up storing it.
   * @param key - the chunk key of the ids the pipeline computes (prestore gives the dataset's).
   */
  constructor(
    private readonly folder: DestFolder,
    private readonly db: DestDb,
    private readonly pre: Prestored | null = null,
    private readonly stop: () => boolean = () => false,
    private readonly key: Buffer = Buffer.alloc(32),
  ) {}

  async entry(id: string, n: number, path: string, rel: string): Promise<void> {
    let st: BigIntStats;
    try {
      st = lstatSync(fsPath(path), { bigint: true });
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const e of names(path)) await this.entry(id, n, join(path, e), rel === '' ? e : `${rel}/${e}`);
      return;
    }
    if (!keepsByChunks(st, path)) return;
    const key = dbPath(rel);
    if (undoFileRecorded(this.db, id, n, key)) {
      // Recorded by a run killed before it removed the whole file.
      await removeAll([path]);
      this.count++;
      return;
    }
    const row: UndoFileRow = { shipment: id, n, rel: key, size: Number(st.size), mode: Number(st.mode) & 0o7777, mtime: String(st.mtimeNs) };
    const known = this.prestored(id, n, rel, st);
    if (known !== null) this.batch.push({ row, path, hashes: known });
    else if (row.size > WHOLE_FILE_MAX) {
      const hashes = await this.store(path, row.size);
      if (hashes !== null) this.batch.push({ row, path, hashes });
    } else {
      // Small files go several at a time: one after another, each waits on its own read.
      while (this.inflight.size >= STORE_FILES || (this.inflight.size > 0 && this.inflightBytes + row.size > STORE_BYTES)) {
        await Promise.race(this.inflight);
      }
      this.inflightBytes += row.size;
      const job: Promise<void> = this.store(path, row.size)
        .then(
          (hashes) => {
            if (hashes !== null) this.batch.push({ row, path, hashes });
          },
          (e: unknown) => {
            this.failed ??= { e };
          },
        )
        .finally(() => {
          this.inflightBytes -= row.size;
          this.inflight.delete(job);
        });
      this.inflight.add(job);
    }
    this.rethrow();
    if (this.batch.length >= BATCH_FILES || this.freshBytes >= BATCH_BYTES) await this.flush();
  }

  /** Waits for the small files being stored; throws the first of their errors. */
  private async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
    this.rethrow();
  }

  private rethrow(): void {
    if (this.failed !== null) throw this.failed.e;
  }

  /** Makes the batch's chunk files durable, records them and its files, then removes the whole files. */
  async flush(): Promise<void> {
    await this.drain();
    if (this.batch.length === 0 && this.fresh.size === 0) return;
    if (this.fresh.size > 0) {
      if (CAN_SYNC_FS) await syncFilesystem(storeDir(this.folder));
      else for (const d of this.dirs) await syncDir(d);
    }
    this.dirs.clear();
    const files = this.batch.splice(0);
    const chunks = [...this.fresh.values()];
    this.fresh.clear();
    this.freshBytes = 0;
    this.db.tx(() => {
      recordChunks(this.db, chunks);
      for (const f of files) {
        recordUndoFile(this.db, f.row);
        f.hashes.forEach((h, i) => addRef(this.db, f.row, i, h));
      }
    });
    failpoint('undo-record');
    await removeAll(files.map((f) => f.path));
    this.count += files.length;
  }

  async close(): Promise<void> {
    // After a failure: the stores still running end before their pipeline does.
    await Promise.allSettled(this.inflight);
    await this.pipeline?.close();
    this.pipeline = null;
  }

  /**
   * Stores the chunks of DEST's file at `path`, which op `n` will retire,
   * into `into` (the chunk files written, nothing recorded); nothing when
   * the file would stay whole in the undo area or changed while read.
   */
  async prestore(into: Prestored, n: number, path: string): Promise<void> {
    const before = lstatOrNull(path);
    if (!before || !keepsByChunks(before, path)) return;
    const ids = new Map<number, { len: number; id: Buffer }>();
    const reading: PrestoreReading = { ino: before.ino, dev: before.dev, size: before.size, mtimeNs: before.mtimeNs, ctimeNs: before.ctimeNs, ids, at: 0 };
    into.begin(n, reading);
    const hashes = await this.store(path, Number(before.size), ids, (at) => ((reading.at = at), into.progressed()));
    const after = lstatOrNull(path);
    if (hashes === null || !after || !sameFile(before, after) || after.ctimeNs !== before.ctimeNs) return;
    into.files.set(n, { ino: before.ino, dev: before.dev, size: before.size, mtimeNs: before.mtimeNs, ctimeNs: before.ctimeNs, hashes, ids });
  }

  /**
   * The chunk hashes of undo file `rel` of op `n` from the chunks stored
   * before the commit, with the chunks the store does not record yet added
   * to this batch; null when there are none for it, when the file is not
   * the one read then, or when a chunk went meanwhile (pruned).
   */
  private prestored(id: string, n: number, rel: string, st: BigIntStats): Buffer[] | null {
    const f = this.pre !== null && this.pre.shipment === id && rel === '' ? this.pre.files.get(n) : undefined;
    if (f === undefined || f.ino !== st.ino || f.dev !== st.dev || f.size !== st.size || f.mtimeNs !== st.mtimeNs) return null;
    const add: Array<[string, FreshChunk]> = [];
    for (const hash of f.hashes) {
      const hex = hash.toString('hex');
      if (this.fresh.has(hex) || chunkStored(this.db, hash)) continue;
      const c = this.pre!.chunks.get(hex);
      if (c === undefined) return null;
      add.push([hex, c]);
    }
    for (const [hex, c] of add) this.fresh.set(hex, c);
    return f.hashes;
  }

  /**
   * Writes the chunks of the file at `path` the store lacks (not yet
   * durable: flush syncs them) and returns all its chunks' hashes in
   * order; null when the file is not `size` bytes any more (it stays whole).
   * With `ids`, each chunk's id (under the Compactor's key) goes there by its offset, and
   * `progress` is told the bytes done after each chunk.
   */
  private async store(
    path: string,
    size: number,
    ids?: Map<number, { len: number; id: Buffer }>,
    progress: (at: number) => void = () => undefined,
  ): Promise<Buffer[] | null> {
    const hashes: Buffer[] = [];
    let changed = false;
    let at = 0;
    const put = (c: FileChunk): void => {
      const hash = c.sha!;
      hashes.push(hash);
      ids?.set(at, { len: c.length, id: c.id });
      at += c.length;
      const hex = hash.toString('hex');
      if (changed || this.fresh.has(hex) || chunkStored(this.db, hash)) return releaseFrame(c.frame);
      const stored = c.frame.length;
      this.writeChunk(hex, c.frame);
      this.fresh.set(hex, { hash, len: c.length, stored });
      this.freshBytes += stored;
      failpoint('undo-chunk');
    };
    const p = (this.pipeline ??= chunkPipeline({ key: this.key, level: UNDO_LEVEL }));
    if (size <= WHOLE_FILE_MAX) {
      const r = await p.encodeFile(path, size, { sha: true });
      changed = r.changed !== undefined;
      for (const c of r.chunks) put(c);
      progress(at);
    } else {
      for await (const { job } of p.encodeLarge(
        path,
        size,
        { sha: true },
        () => (changed = true),
        () => undefined,
      )) {
        put(await job);
        progress(at);
        if (this.stop()) return null;
      }
    }
    return changed ? null : hashes;
  }

  /** A chunk's frame into undo-chunks/HH/HASH, through tmp/ (synced here only where one file-system sync is not available). */
  private writeChunk(hex: string, frame: Frame): void {
    const tmpDir = join(storeDir(this.folder), 'tmp');
    const to = chunkPath(this.folder, hex);
    const dir = join(to, '..');
    if (!this.dirs.has(dir)) {
      mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.dirs.add(dir);
    }
    const tmp = join(tmpDir, hex);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      if (Buffer.isBuffer(frame)) for (let at = 0; at < frame.length;) at += writeSync(fd, frame, at, frame.length - at);
      else
        try {
          frame.writeTo(fd, 0);
        } catch (e) {
          throw fromNative(e, (errno) => toEnvironmentError(errno, 'cannot write the undo store', { path: tmp }));
        }
      if (!CAN_SYNC_FS) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, to);
  }
}

/** Removals at once: one after another, each waits on the disk (a large file's blocks are freed as it goes). */
const REMOVALS = 8;

/** Removes whole files whose rows are written, several at a time on the thread pool. */
async function removeAll(paths: string[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      // A file not removed now is removed by the next compaction (its row exists); rollback then uses the whole file.
      await unlink(fsPath(paths[next++]!)).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMOVALS, paths.length) }, worker));
}

/** The names in a folder, as escaped strings (a name that is not UTF-8 survives); none when it cannot be read. */
function names(dir: string): string[] {
  try {
    return readdirSync(fsPath(dir), { encoding: 'buffer' }).map(fromBytes);
  } catch {
    return [];
  }
}

/** Whether a file in the undo area is kept by chunks: a sparse file, or one with attributes, another owner or several links, stays whole. */
function keepsByChunks(st: BigIntStats, path: string): boolean {
  // A sparse file stays whole: its holes are its own, and a file rebuilt from chunks would fill them.
  const sparse = st.blocks * 512n < st.size;
  return st.isFile() && st.nlink === 1n && (!process.geteuid || st.uid === BigInt(process.geteuid())) && !sparse && !hasXattrs(path);
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

function lstatOrNull(path: string): BigIntStats | null {
  try {
    return lstatSync(fsPath(path), { bigint: true });
  } catch {
    return null;
  }
}

function hasXattrs(path: string): boolean {
  try {
    return posix.listXattrs(fsPath(path)).length > 0;
  } catch {
    return false;
  }
}
