import { TreeQueries } from '../catalog/trees.js';
import { BrickpostError, CHUNKS_PER_RECORD, isBrickpostError, quote } from '@brickpost/manifest';
import { WHOLE_FILE_MAX, type ChunkPipeline, type EncodeFileOptions, type FileChunk } from '../chunk/index.js';
import { blockSizeFor } from '../delta/block-size.js';
import { toFileError } from '../chunk/file.js';
import { failpointError } from '../io/failpoint.js';
import type { SourceEntry } from '../scan/index.js';
import { SIGNATURE_MIN, type EntryPackerParts, type FileState, type Item, type WholeRead } from './entry-parts.js';
import { LargeFeed, type FeedPart } from './large-feed.js';
import type { ReadChunk } from './store.js';
import { afterRead, MAX_READS, restarted } from './settle.js';
import { dataRegions, sparsePieces } from './sparse.js';
import { chunkEntry, heldRefs, holeEntry, chunkIds, type TreeRow } from './tree.js';

/**
 * Packs the entries of a source tree in manifest order. A file unchanged
 * since the reference tree (stat cache) whose chunks are all held becomes
 * held refs without being opened. Any other file is read and chunked on
 * worker threads, its signature computed as it streams; each new chunk of a
 * file with a basis is also tried as a delta, where the basis signature
 * is held (a worker, or the native core), as soon as its id shows it is
 * neither held nor already stored. Records, frames and tree rows are
 * written in order by one loop over a bounded queue of jobs. A file larger
 * than WHOLE_FILE_MAX is read in the background (a LargeFeed), so the walk
 * goes on past it: the files after it are read and encoded, and unchanged
 * ones looked up, while it is read, and written once it is.
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
  /** Source bytes of the queued jobs (a large file's feed apart). */
  private queuedBytes = 0;
  /** Queued items that hold work or its results: whole files, chunks, large files. */
  private busy = 0;
  /** Hex bytes of the chunk lists of queued unchanged files. */
  private heldBytes = 0;
  /** Large files queued (at most one: see addFile), whose feeds a stop ends. */
  private readonly feeds = new Set<LargeFeed>();
  private readonly trees: TreeQueries;

  constructor(private readonly p: EntryPackerParts) {
    this.trees = new TreeQueries(p.catalog);
  }

  /** Files left out because they could not be read; a hard link naming one is shipped as that file instead. */
  private readonly dropped = new Map<string, SourceEntry>();
  /** The entry a later hard link of a dropped file names instead. */
  private readonly renamed = new Map<string, string>();

  private push(item: Item): void {
    this.queue.push(item);
    if (holdsWork(item.kind)) this.busy++;
    else if (item.kind === 'held') this.heldBytes += item.row.hex.length;
  }

  /** Queues one entry; writes what is done. @throws what reading, the workers and the drive throw */
  async add(entry: SourceEntry): Promise<void> {
    if (entry.type === 'dir') {
      this.push({ kind: 'dir', entry });
      return this.drain(MAX_QUEUE);
    }
    if (entry.type === 'hard') {
      const to = this.renamed.get(entry.to!) ?? entry.to!;
      const gone = this.dropped.get(to);
      if (!gone) {
        this.push({ kind: 'entry', entry: { ...entry, to } });
        return this.drain(MAX_QUEUE);
      }
      // The file this name shares could not be read as its first name: try it as this one.
      this.dropped.delete(to);
      this.renamed.set(to, entry.path);
      entry = { ...gone, path: entry.path, abs: entry.abs, type: 'file' };
    }
    if (entry.type !== 'file') {
      this.push({ kind: 'entry', entry });
      return this.drain(MAX_QUEUE);
    }
    try {
      await this.addFile(entry);
    } catch (e) {
      if (e instanceof Theirs) throw e.error;
      // Opening it failed before anything of it was written (a read on a worker reports at drain: dropFile).
      if (!this.dropFile(entry, e)) throw e;
    }
  }

  /** Writing queued items for room: what fails there is about other files than the one being added (Theirs). */
  private async others(writing: Promise<void>): Promise<void> {
    try {
      await writing;
    } catch (e) {
      throw new Theirs(e);
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
    // A row of the one tree whose chunks are the held set needs no lookup of its chunks.
    if (row && (p.store.held.tree === p.lookup.reference || this.allHeld(Buffer.from(row.hex, 'hex')))) {
      this.push({ kind: 'held', file, row });
      return this.others(this.drain(MAX_QUEUE));
    }
    const regions = entry.sparse ? dataRegions(entry.abs, entry.size) : null;
    if (regions) return this.addSparse(file, regions);
    file.basis = p.lookup.basis(entry.path);
    const known = file.basis && p.store.held.any ? this.heldOf(file.basis.chunks) : undefined;
    if (known) file.known = known;
    if (entry.size <= WHOLE_FILE_MAX) {
      const job = this.readWhole(file);
      job.catch(() => undefined);
      this.push({ kind: 'whole', file, job });
      this.queuedBytes += entry.size;
      return this.others(this.drain(MAX_QUEUE));
    }
    // One large file at a time is read ahead: the one before is written first.
    while (this.feeds.size > 0) await this.others(this.writeHead());
    this.push({ kind: 'large', file, feed: this.feed(file) });
    return this.others(this.drain(MAX_QUEUE));
  }

  /** Starts reading a large file's chunks in the background, at most LARGE_AHEAD bytes ahead of their writing. */
  private feed(file: FileState): LargeFeed {
    const chunks = async function* (this: EntryPacker): AsyncGenerator<FeedPart> {
      for await (const { length, job: encoded } of this.readLarge(file)) {
        const job = encoded.then((c) => this.speculate(file, c, c.raw));
        job.catch(() => undefined);
        yield { length, job };
      }
    };
    const feed = new LargeFeed(chunks.call(this), LARGE_AHEAD);
    this.feeds.add(feed);
    return feed;
  }

  /**
   * Writes a large file's chunks as its feed gives them, then settles it
   * (settleLarge) and ends it. One that could not be opened or read, with
   * nothing of it written, is left out (dropFile).
   */
  private async writeLarge(file: FileState, feed: LargeFeed): Promise<void> {
    try {
      for (let part = await feed.next(); part; part = await feed.next()) await this.storeChunk(file, await part.job);
    } catch (e) {
      // Writing failed (a full drive): end the read before the pack's failure closes the threads it reads on.
      await feed.stop();
      throw e;
    } finally {
      this.feeds.delete(feed);
    }
    if (feed.failure) {
      if (!file.emitted && this.dropFile(file.entry, feed.failure.error)) return;
      throw feed.failure.error;
    }
    await this.settleLarge(file);
    await this.endFile(file, file.signature);
  }

  /** After a failure: ends the large files being read (closing them), so nothing reads on behind the pack. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.feeds].map((f) => f.stop()));
  }

  private readOptions(file: FileState): EncodeFileOptions {
    return {
      sha: this.p.sha,
      signature: file.entry.size >= SIGNATURE_MIN ? blockSizeFor(file.entry.size) : 0,
      raw: file.basis !== null,
      ...(file.known ? { known: file.known } : {}),
    };
  }

  /**
   * The ids of a chunk list that every recipient holds (by keyed id): the
   * unchanged chunks of a changed file, which become held refs and so need
   * neither a frame nor a delta.
   */
  private heldOf(list: Buffer): Buffer | undefined {
    const held: Buffer[] = [];
    for (const id of chunkIds(list)) if (this.p.store.held.has(id)) held.push(id);
    return held.length > 0 ? Buffer.concat(held) : undefined;
  }

  /**
   * Reads a file of at most WHOLE_FILE_MAX bytes at once on a worker. A
   * copy to fetch first (object storage) is fetched in the background: the
   * queue bounds how many at once.
   */
  private readWhole(file: FileState): Promise<WholeRead> {
    const f = this.p.fetch;
    const { entry } = file;
    const read = f
      ? f.fetch(entry).then((local) => this.p.pipeline.encodeFile(local, entry.size, this.readOptions(file)).finally(() => f.release(local)))
      : this.p.pipeline.encodeFile(entry.abs, entry.size, this.readOptions(file));
    // eslint-disable-next-line @typescript-eslint/await-thenable -- the chunks settle together, in one step
    return read.then(async (r) => ({ ...r, chunks: await Promise.all(r.chunks.map((c) => this.speculate(file, c, c.raw))) }));
  }

  /** Reads a larger file as a stream of chunk jobs (from a fetched copy for object storage, removed once read). */
  private async *readLarge(file: FileState): ReturnType<ChunkPipeline['encodeLarge']> {
    failpointError('source-open', () => toFileError(Object.assign(new Error('no such file or directory'), { code: 'ENOENT' }), file.entry.abs));
    const f = this.p.fetch;
    const local = f ? await f.fetch(file.entry) : file.entry.abs;
    try {
      yield* this.p.pipeline.encodeLarge(
        local,
        file.entry.size,
        this.readOptions(file),
        (how) => (file.readChange = how),
        (s) => (file.signature = s),
      );
    } finally {
      if (f) await f.release(local);
    }
  }

  /** The consistency point of a file just read (settle.ts afterRead); an object is read from one fetched copy of one version (its ETag), so it cannot change under the read. */
  private afterRead(file: FileState, readChange: string | undefined): ReturnType<typeof afterRead> {
    return this.p.fetch ? Promise.resolve({ how: null, now: null }) : afterRead(file.entry, readChange);
  }

  /** A whole file read until it settles, at most MAX_READS times. @throws NOT_FOUND when it vanished (the caller drops it) */
  private async settleWhole(file: FileState, r: WholeRead): Promise<WholeRead> {
    for (let reads = 1; ; reads++) {
      const { how, now } = await this.afterRead(file, r.changed);
      if (how === null) return r;
      if (now === null) throw new BrickpostError('NOT_FOUND', `${quote(file.entry.path)} vanished while packing`, { path: file.entry.path });
      if (reads >= MAX_READS || !now.isFile() || Number(now.size) > WHOLE_FILE_MAX) {
        this.unsettle(file, how);
        return r;
      }
      file.entry = restarted(file.entry, now);
      r = await this.readWhole(file);
    }
  }

  /**
   * A larger file read until it settles: its chunks are in the packs and
   * its refs held back until its end (unless it filled a record first, see
   * flushRefs); a re-read starts its refs over, and the frames of the
   * earlier read stay in the pack unreferenced (bytes lost, nothing wrong).
   * A sparse file, or one whose first record is written, is not re-read.
   */
  private async settleLarge(file: FileState): Promise<void> {
    for (let reads = 1; ; reads++) {
      const { how, now } = await this.afterRead(file, file.readChange);
      if (how === null) return;
      if (reads >= MAX_READS || file.emitted || file.entry.sparse || now === null || !now.isFile()) return this.unsettle(file, how);
      file.entry = restarted(file.entry, now);
      Object.assign(file, { refs: [], list: [], signature: null, readChange: undefined });
      for await (const { job } of this.readLarge(file)) await this.storeChunk(file, await job.then((c) => this.speculate(file, c, c.raw)));
    }
  }

  /** A file that did not settle: reported, and with allowChanging shipped as last read, marked. */
  private unsettle(file: FileState, how: string): void {
    file.changing = true;
    this.p.unsettled({ path: file.entry.path, how });
    if (this.p.allowChanging)
      this.p.warn(
        'CHANGED',
        `${quote(file.entry.path)} ${how}, and did not settle in ${MAX_READS} reads; shipped as last read, marked as changing`,
        file.entry.path,
      );
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
        this.push({ kind: 'hole', file, length: piece.hole });
        continue;
      }
      const length = piece.length;
      const job = p.pipeline.encode(piece, { sha: p.sha }).then((c) => this.speculate(file, c, undefined));
      job.catch(() => undefined);
      this.push({ kind: 'chunk', file, length, job });
      this.queuedBytes += length;
      await this.others(this.drain(MAX_QUEUE));
    }
    this.push({ kind: 'end', file });
    return this.others(this.drain(MAX_QUEUE));
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
    const out: ReadChunk = { id: c.id, frame: c.frame, length: c.length, ...(c.sha ? { sha: c.sha } : {}), ...(c.known ? { known: true } : {}) };
    const b = file.basis;
    if (c.known || !b || !raw || !this.p.store.isNew(c.id, c.sha)) return out;
    const basis = { id: b.sigId, bytes: () => this.trees.sigBytes(b.sigId)! };
    return this.p.pipeline.delta(raw, basis, c.frame.length).then((delta) => ({ ...out, delta }));
  }

  /**
   * Writes queued items, oldest first, while the queue is over its bounds
   * (`limit` busy items; 0 writes everything).
   */
  private async drain(limit: number): Promise<void> {
    while (this.over(limit)) await this.writeHead();
  }

  private over(limit: number): boolean {
    if (limit === 0) return this.queue.length > 0;
    // Items that hold no work count only behind a large file: otherwise each leaves the queue young, where the GC costs least.
    const count = this.feeds.size > 0 ? this.busy : this.queue.length;
    if (count > limit || this.queue.length > MAX_ITEMS || this.heldBytes > MAX_HELD_BYTES) return true;
    // Only an item that brings bytes waits for bytes to be written: an unchanged file behind a large one does not.
    const last = this.queue.at(-1);
    if (!last || !holdsWork(last.kind)) return false;
    // While a large file is read ahead, the other files' jobs get what its feed leaves of the bound.
    return this.queuedBytes > MAX_QUEUED_BYTES - (this.feeds.size > 0 ? LARGE_AHEAD : 0);
  }

  /** Writes the oldest queued item. */
  private async writeHead(): Promise<void> {
    const p = this.p;
    const item = this.queue.shift()!;
    if (holdsWork(item.kind)) this.busy--;
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
      let r: WholeRead;
      try {
        r = await this.settleWhole(item.file, await item.job);
      } catch (e) {
        if (this.dropFile(item.file.entry, e)) return;
        throw e;
      }
      item.file.signature = r.signature ?? null;
      for (const c of r.chunks) await this.storeChunk(item.file, c);
      await this.endFile(item.file, item.file.signature);
    } else if (item.kind === 'held') {
      this.heldBytes -= item.row.hex.length;
      await this.storeHeld(item.file, item.row);
    } else if (item.kind === 'large') {
      await this.writeLarge(item.file, item.feed);
    } else {
      await this.settleLarge(item.file);
      await this.endFile(item.file, item.file.signature);
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
    } else await m.add({ t: 'special', p: e.path, kind: e.kind!, mode: e.mode, mtime, ...(e.dev ? { dev: e.dev } : {}), ...e.attrs });
    this.p.progress.add(0, 0);
  }

  private async storeChunk(f: FileState, c: ReadChunk): Promise<void> {
    f.refs.push(await this.p.store.ref(c));
    f.list.push(chunkEntry(c.id, c.length));
    this.bytesIn += c.length;
    this.bytesRead += c.length;
    this.p.progress.add(c.length);
    if (f.refs.length >= CHUNKS_PER_RECORD) await this.flushRefs(f, false);
  }

  /** A stat-cache hit: the kept chunk list as held refs, and the kept signature. */
  private async storeHeld(f: FileState, row: TreeRow): Promise<void> {
    for (const ref of heldRefs(row.hex)) {
      f.refs.push(ref.length === 1 ? ref : this.p.store.heldRef(ref[0], ref[1]));
      if (f.refs.length >= CHUNKS_PER_RECORD) await this.flushRefs(f, false);
    }
    await this.flushRefs(f, true);
    const ref = this.p.lookup.reference;
    if (ref !== null) this.p.rows.addHeldFile(ref, row.path, row.prev);
    else this.p.rows.addTreeFile(f.entry, Buffer.from(row.hex, 'hex'), row.sigId);
    this.filesUnchanged++;
    this.bytesIn += f.entry.size;
    this.p.progress.add(f.entry.size, 1);
  }

  private async endFile(f: FileState, signature: Buffer | null): Promise<void> {
    await this.flushRefs(f, true);
    const sig = signature ? { blockSize: signature.readUInt32BE(8), length: f.entry.size, sig: signature } : null;
    // Only now: a re-read (settleLarge) drops the chunks of the reads before.
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
      await this.p.manifest.add({
        t: 'file',
        p: e.path,
        size: e.size,
        mode: e.mode,
        mtime: e.mtimeNs.toString(),
        c: f.refs,
        ...(b ? { b: [b.path, b.size, b.blockSize] } : {}),
        ...e.attrs,
        ...(f.changing ? { changing: true as const } : {}),
      });
      f.emitted = true;
    } else if (f.refs.length > 0 || (last && f.changing)) {
      // A file whose first record went out before it was read to the end carries the mark on its last record.
      await this.p.manifest.add({ t: 'more', c: f.refs, ...(last && f.changing ? { changing: true as const } : {}) });
    }
    f.refs = [];
  }
}

// Work in flight is bounded by count (many small files) and by bytes (large files): the frames of 16 MiB
// of source keep both cores busy; 32 MiB held 16 MB more of native memory at a 2 GiB pack's peak, for no speed.
const MAX_QUEUE = 40;
const MAX_QUEUED_BYTES = 16 << 20;
/** A large file's chunks read ahead of their writing, out of MAX_QUEUED_BYTES: the files after it share the rest. */
const LARGE_AHEAD = 8 << 20;
/**
 * Items that hold no work (folders, links, unchanged files, holes, ends)
 * queue behind a large file up to these bounds. They cost heap with their
 * entries and rows: 4096 of them raised a second pack's peak by 20–30 MB
 * and 512 by 8–16 MB, 64 by nothing measured, all in the same time.
 */
const MAX_ITEMS = 64;
const MAX_HELD_BYTES = 1 << 20;

/** Items that hold work or its results (and source bytes): the queue's busy count. */
function holdsWork(kind: Item['kind']): boolean {
  return kind === 'whole' || kind === 'chunk' || kind === 'large';
}

/** A failure met while writing other files than the one being added, which must not leave that one out. */
class Theirs extends Error {
  constructor(readonly error: unknown) {
    super('a failure while writing other files');
  }
}
