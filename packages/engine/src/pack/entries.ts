import type Database from 'better-sqlite3';
import { CHUNKS_PER_RECORD, isBrickpostError, quote, type ChunkRef, type EntryAttributes } from '@brickpost/manifest';
import { WHOLE_FILE_MAX, type ChunkPipeline, type FileChunk } from '../chunk/index.js';
import { blockSizeFor } from '../delta/block-size.js';
import type { Progress } from '../io/progress.js';
import type { SourceEntry } from '../scan/index.js';
import type { ShipmentRows } from './catalog-rows.js';
import type { ManifestOut } from './manifest-out.js';
import type { ChunkStore, ReadChunk } from './store.js';
import { dataRegions, sparsePieces } from './sparse.js';
import { chunkEntry, heldRefs, holeEntry, chunkIds, type Basis, type TreeLookup, type TreeRow } from './tree.js';

/**
 * Files from this size on get a signature when read, so a later shipment can
 * send their changes as deltas. Below it a changed file costs at most its own
 * frame. Measured on the 300 MiB benchmark dataset after make_dataset.py
 * --mutate 5 (bytes of the incremental shipment on the drive): 9.31 MB from
 * 16 KiB or 64 KiB on, 9.61 MB from 1 MiB on (appends to files between lose
 * their deltas), 30.4 MB with no signatures; the 1 354 files between 16 and
 * 64 KiB (46 MiB) only cost signing time, as small files tend to be rewritten
 * whole.
 */
export const SIGNATURE_MIN = 64 * 1024;

/** A file on its way into the manifest. */
interface FileState {
  entry: SourceEntry;
  refs: ChunkRef[];
  emitted: boolean;
  basis: Basis | null;
  /** Chunk list entries so far (FORMAT of tree_files.chunks). */
  list: Buffer[];
  signature: Buffer | null;
}

type Item =
  | { kind: 'dir'; entry: SourceEntry }
  | { kind: 'entry'; entry: SourceEntry }
  | { kind: 'chunk'; file: FileState; length: number; job: Promise<ReadChunk> }
  | { kind: 'hole'; file: FileState; length: number }
  | { kind: 'whole'; file: FileState; job: Promise<{ chunks: ReadChunk[]; changed?: string; signature?: Buffer }> }
  | { kind: 'held'; file: FileState; row: TreeRow }
  | { kind: 'end'; file: FileState };

/** What EntryPacker needs from the shipment being packed. */
export interface EntryPackerParts {
  db: Database.Database;
  manifest: ManifestOut;
  store: ChunkStore;
  rows: ShipmentRows;
  /** Stat cache and bases; a lookup with neither for a shipment that reads every file. */
  lookup: TreeLookup;
  pipeline: ChunkPipeline;
  progress: Progress;
  warn: (code: string, message: string, path?: string) => void;
  /** Compute each chunk's SHA-256 (a held set of plain digests needs it). */
  sha: boolean;
  /** A file that could not be read (gone, or permission denied): left out of the shipment, with its reason. */
  notShipped: (path: string, reason: string) => void;
}

/**
 * Packs the entries of a source tree in manifest order. A file unchanged
 * since the reference tree (stat cache) whose chunks are all held becomes
 * held refs without being opened. Any other file is read and chunked on
 * worker threads, its signature computed as it streams; each new chunk of a
 * file with a basis is also tried as a delta, on the worker holding the
 * basis signature, as soon as its id shows it is neither held nor already
 * stored. Records, frames and tree rows are written in order by one loop
 * over a bounded queue of jobs.
 */
export class EntryPacker {
  filesUnchanged = 0;
  filesRead = 0;
  /** Files with holes, and the bytes of their holes. */
  sparseFiles = 0;
  holeBytes = 0;
  /** Bytes of the files shipped, and of those read from the source. */
  bytesIn = 0;
  bytesRead = 0;
  private readonly queue: Item[] = [];
  private queuedBytes = 0;
  private readonly sigBytes: Database.Statement;

  constructor(private readonly p: EntryPackerParts) {
    this.sigBytes = p.db.prepare('SELECT sig FROM sigs WHERE id = ?').pluck();
  }

  /** Files left out because they could not be read; a hard link naming one is shipped as that file instead. */
  private readonly dropped = new Map<string, SourceEntry>();
  /** The entry a later hard link of a dropped file names instead. */
  private readonly renamed = new Map<string, string>();

  /** Queues one entry; writes what is done. @throws what reading, the workers and the drive throw */
  async add(entry: SourceEntry): Promise<void> {
    if (entry.type === 'dir') {
      this.queue.push({ kind: 'dir', entry });
      return this.drain(MAX_QUEUE);
    }
    if (entry.type === 'hard') {
      const to = this.renamed.get(entry.to!) ?? entry.to!;
      const gone = this.dropped.get(to);
      if (!gone) {
        this.queue.push({ kind: 'entry', entry: { ...entry, to } });
        return this.drain(MAX_QUEUE);
      }
      // The file this name shares could not be read as its first name: try it as this one.
      this.dropped.delete(to);
      this.renamed.set(to, entry.path);
      entry = { ...gone, path: entry.path, abs: entry.abs, type: 'file' };
    }
    if (entry.type !== 'file') {
      this.queue.push({ kind: 'entry', entry });
      return this.drain(MAX_QUEUE);
    }
    try {
      await this.addFile(entry);
    } catch (e) {
      // Opening it failed before anything of it was written (a read on a worker reports at drain: dropFile).
      if (!this.dropFile(entry, e)) throw e;
    }
  }

  /**
   * Leaves out a file that vanished or cannot be read, says so and counts
   * it; true when `e` is such a failure (nothing of the file was written).
   */
  private dropFile(entry: SourceEntry, e: unknown): boolean {
    if (!(isBrickpostError(e) && (e.code === 'NOT_FOUND' || e.code === 'PERMISSION') && e.path !== undefined)) return false;
    this.dropped.set(entry.path, entry);
    this.p.notShipped(entry.path, e.code === 'NOT_FOUND' ? 'vanished while packing' : 'cannot be read (permission denied)');
    return true;
  }

  private async addFile(entry: SourceEntry): Promise<void> {
    const p = this.p;
    const file: FileState = { entry, refs: [], emitted: false, basis: null, list: [], signature: null };
    const row = p.store.held.any ? p.lookup.unchanged(entry) : null;
    if (row && this.allHeld(row.chunks)) {
      this.queue.push({ kind: 'held', file, row });
      return this.drain(MAX_QUEUE);
    }
    const regions = entry.sparse ? dataRegions(entry.abs, entry.size) : null;
    if (regions) return this.addSparse(file, regions);
    file.basis = p.lookup.basis(entry.path);
    const signature = entry.size >= SIGNATURE_MIN ? blockSizeFor(entry.size) : 0;
    const keep = file.basis !== null;
    if (entry.size <= WHOLE_FILE_MAX) {
      const job = p.pipeline
        .encodeFile(entry.abs, entry.size, { sha: p.sha, signature, raw: keep })
        // eslint-disable-next-line @typescript-eslint/await-thenable -- the chunks settle together, in one step
        .then(async (r) => ({ ...r, chunks: await Promise.all(r.chunks.map((c) => this.speculate(file, c, c.raw))) }));
      job.catch(() => undefined);
      this.queue.push({ kind: 'whole', file, job });
      this.queuedBytes += entry.size;
      return this.drain(MAX_QUEUE);
    }
    const changed = (how: string): void => p.warn('CHANGED', `${quote(entry.path)} ${how}`, entry.path);
    for await (const { length, job: encoded } of p.pipeline.encodeLarge(entry.abs, entry.size, { sha: p.sha, signature, raw: keep }, changed, (s) => (file.signature = s))) {
      const job = encoded.then((c) => this.speculate(file, c, c.raw));
      job.catch(() => undefined);
      this.queue.push({ kind: 'chunk', file, length, job });
      this.queuedBytes += length;
      await this.drain(MAX_QUEUE);
    }
    this.queue.push({ kind: 'end', file });
    return this.drain(MAX_QUEUE);
  }

  /**
   * A file with holes: its data regions are read and cut on this thread
   * (sparse files are few), each chunk encoded on the workers; holes go into
   * the refs as they come. No signature: a later change to it ships whole
   * chunks, not deltas.
   */
  private async addSparse(file: FileState, regions: Array<[number, number]>): Promise<void> {
    const p = this.p;
    this.sparseFiles++;
    for (const piece of sparsePieces(file.entry.abs, file.entry.size, regions)) {
      if (!Buffer.isBuffer(piece)) {
        this.holeBytes += piece.hole;
        this.queue.push({ kind: 'hole', file, length: piece.hole });
        continue;
      }
      const length = piece.length;
      const job = p.pipeline.encode(piece, { sha: p.sha }).then((c) => this.speculate(file, c, undefined));
      job.catch(() => undefined);
      this.queue.push({ kind: 'chunk', file, length, job });
      this.queuedBytes += length;
      await this.drain(MAX_QUEUE);
    }
    this.queue.push({ kind: 'end', file });
    return this.drain(MAX_QUEUE);
  }

  /** Writes everything queued. */
  finish(): Promise<void> {
    return this.drain(0);
  }

  private allHeld(list: Buffer): boolean {
    for (const id of chunkIds(list)) if (!this.p.store.held.has(id)) return false;
    return true;
  }

  /**
   * Starts the delta of a chunk of a file with a basis, when its id shows it
   * will need storing. A later identical chunk may still make the delta
   * moot (the store then refers to that frame); the work is only wasted.
   */
  private speculate(file: FileState, c: FileChunk, raw: Buffer | undefined): Promise<ReadChunk> | ReadChunk {
    const out: ReadChunk = { id: c.id, frame: c.frame, length: c.length, ...(c.sha ? { sha: c.sha } : {}) };
    const b = file.basis;
    if (!b || !raw || !this.p.store.isNew(c.id, c.sha)) return out;
    const basis = { id: b.sigId, bytes: () => this.sigBytes.get(b.sigId) as Buffer };
    return this.p.pipeline.delta(raw, basis, c.frame.length).then((delta) => ({ ...out, delta }));
  }

  private async drain(limit: number): Promise<void> {
    const p = this.p;
    while (this.queue.length > limit || (limit > 0 && this.queuedBytes > MAX_QUEUED_BYTES)) {
      const item = this.queue.shift()!;
      if (item.kind === 'dir') {
        const e = item.entry;
        await p.manifest.add({ t: 'dir', p: e.path, mode: e.mode, mtime: e.mtimeNs.toString(), ...e.attrs });
        p.progress.add(0, 0);
      } else if (item.kind === 'entry') {
        await this.addOther(item.entry);
      } else if (item.kind === 'hole') {
        item.file.refs.push([item.length]);
        item.file.list.push(holeEntry(item.length));
        this.bytesIn += item.length;
        p.progress.add(item.length);
        await this.flushRefs(item.file, false);
      } else if (item.kind === 'chunk') {
        const c = await item.job;
        this.queuedBytes -= item.length;
        await this.storeChunk(item.file, c);
      } else if (item.kind === 'whole') {
        this.queuedBytes -= item.file.entry.size;
        let r: Awaited<typeof item.job>;
        try {
          r = await item.job;
        } catch (e) {
          if (this.dropFile(item.file.entry, e)) continue;
          throw e;
        }
        if (r.changed) p.warn('CHANGED', `${quote(item.file.entry.path)} ${r.changed}`, item.file.entry.path);
        item.file.signature = r.signature ?? null;
        for (const c of r.chunks) await this.storeChunk(item.file, c);
        await this.endFile(item.file, item.file.signature);
      } else if (item.kind === 'held') {
        await this.storeHeld(item.file, item.row);
      } else {
        await this.endFile(item.file, item.file.signature);
      }
    }
  }

  /** A symbolic link, hard link or special file: one record, nothing to read. */
  private async addOther(e: SourceEntry): Promise<void> {
    const m = this.p.manifest;
    const mtime = e.mtimeNs.toString();
    if (e.type === 'link') await m.add({ t: 'link', p: e.path, target: e.target!, mtime, ...(e.attrs.o ? { o: e.attrs.o } : {}) });
    else if (e.type === 'hard') {
      // Its file turned out unreadable after this name was queued.
      if (this.dropped.has(e.to!)) return this.p.notShipped(e.path, 'a hard link of a file that could not be read');
      await m.add({ t: 'hard', p: e.path, to: e.to! });
    }
    else await m.add({ t: 'special', p: e.path, kind: e.kind!, mode: e.mode, mtime, ...(e.dev ? { dev: e.dev } : {}), ...e.attrs });
    this.p.progress.add(0, 0);
  }

  private async storeChunk(f: FileState, c: ReadChunk): Promise<void> {
    f.refs.push(await this.p.store.ref(c));
    f.list.push(chunkEntry(c.id, c.length));
    this.p.rows.addTreeChunk(c.id);
    this.bytesIn += c.length;
    this.bytesRead += c.length;
    this.p.progress.add(c.length);
    await this.flushRefs(f, false);
  }

  /** A stat-cache hit: the kept chunk list as held refs, and the kept signature. */
  private async storeHeld(f: FileState, row: TreeRow): Promise<void> {
    for (const ref of heldRefs(row.chunks)) {
      if (ref.length === 1) f.refs.push(ref);
      else {
        f.refs.push(this.p.store.heldRef(ref[0], ref[1]));
        this.p.rows.addTreeChunk(Buffer.from(ref[0], 'hex'));
      }
      await this.flushRefs(f, false);
    }
    await this.flushRefs(f, true);
    this.p.rows.addTreeFile(f.entry, row.chunks, row.sigId);
    this.filesUnchanged++;
    this.bytesIn += f.entry.size;
    this.p.progress.add(f.entry.size, 1);
  }

  private async endFile(f: FileState, signature: Buffer | null): Promise<void> {
    await this.flushRefs(f, true);
    const sig = signature ? { blockSize: signature.readUInt32BE(8), length: f.entry.size, sig: signature } : null;
    this.p.rows.addTreeFile(f.entry, Buffer.concat(f.list), sig);
    this.filesRead++;
    this.p.progress.add(0, 1);
  }

  /** Writes the file's refs once a record is full, or all of them at its end (`last`). */
  private async flushRefs(f: FileState, last: boolean): Promise<void> {
    if (!last && f.refs.length < CHUNKS_PER_RECORD) return;
    if (!f.emitted) {
      const e = f.entry;
      const b = f.basis;
      await this.p.manifest.add({ t: 'file', p: e.path, size: e.size, mode: e.mode, mtime: e.mtimeNs.toString(), c: f.refs, ...(b ? { b: [b.path, b.size, b.blockSize] } : {}), ...attrsOf(e.attrs) });
      f.emitted = true;
    } else if (f.refs.length > 0) {
      await this.p.manifest.add({ t: 'more', c: f.refs });
    }
    f.refs = [];
  }
}

function attrsOf(a: EntryAttributes): EntryAttributes {
  return a;
}

// Work in flight is bounded by count (many small files) and by bytes (large files).
const MAX_QUEUE = 40;
const MAX_QUEUED_BYTES = 32 << 20;
