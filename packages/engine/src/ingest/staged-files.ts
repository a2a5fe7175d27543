import { closeSync, constants, copyFileSync, fstatSync, lstatSync, openSync, readSync, rmSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { BrickpostError, quote, type DeltaRef, type FileRecord, type HeldRef } from '@brickpost/manifest';
import { chunkId } from '../chunk/index.js';
import { deltaChunk } from '../delta/index.js';
import { toEnvironmentError } from '../io/errors.js';
import { failpoint } from '../io/failpoint.js';
import type { ChunkBytes } from '../verify/native-readers.js';
import type { ShipmentVisitor } from '../verify/walk-shipment.js';
import { fsPath } from '../io/fs-path.js';
import { dbPath, pathFromDb, type DestDb } from './dest-db.js';
import { STAGED_IN_TREE } from './dest-rows.js';
import type { StagingWriter } from './staging-writer.js';
import type { FileSeen, Prestored, PrestoreReading } from './prestored.js';

/** Errors of opening a DEST file that mean it was changed locally (a basis missing), not that the disk failed. */
const LOCALLY_CHANGED = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EISDIR']);

/**
 * Builds staged files: chunks from the drive as they come, held chunks from
 * DEST's files (found through the `held` index), delta chunks applied to the
 * file's basis in DEST. Every chunk not read from the drive is checked
 * against its keyed id before it is written; a mismatch means DEST's file
 * changed without its size or mtime changing, and refuses the shipment
 * (BASIS_MISSING naming the file). A held chunk of a file the undo store
 * takes ahead (`pre`, prestore.ts) is checked there instead: its id at that
 * offset was computed from the bytes read then. It is copied inside the
 * kernel (copy_file_range) when the file is still the one read then (same
 * inode, size, mtime and ctime, before and after the copy), without
 * passing through JavaScript or being hashed again.
 */
export class Stager implements ShipmentVisitor {
  /** Files copied from a file being retired (moved or renamed by the publisher). */
  linked = 0;
  deltas = 0;
  bytesFromDrive = 0;
  bytesReused = 0;
  private file: FileRecord | null = null;
  /** Install op of each file wanted and where it is staged, until the walk reaches it (wants runs ahead of the writes). */
  private readonly pending = new Map<string, { n: number; at: string }>();
  private readonly fds = new Map<string, number>();
  /** Reused by delta(): the old file's pieces as they are read; and the chunk rebuilt, or read whole by held(). */
  private pieces: Buffer | null = null;
  private rebuilt: Buffer | null = null;
  private readonly db: DestDb;
  /** DEST holds files to copy from (none on a first ingest: no lookup per file then). */
  private readonly anyOld: boolean;

  /**
   * The plan's install ops in order: the files to stage, in the order the
   * walk meets them (both follow the manifest), so a file the plan keeps
   * costs the walk no lookup. Read a page at a time; while the plan is
   * still being written (`planning`), a page read to its end is asked for
   * again, as the walk runs behind the plan (PlanGate).
   */
  private page: Array<{ n: number; path: string; target: string | null }> = [];
  private at = 0;
  private after = -1;
  private pagesEnded = false;
  /** Whether the plan is still being written (an ingest that plans while it stages). */
  planning: () => boolean = () => false;

  constructor(
    db: DestDb,
    private readonly shipment: string,
    private readonly dest: string,
    private readonly writer: StagingWriter,
    private readonly key: Buffer,
    private readonly pre: Prestored | null = null,
  ) {
    this.db = db;
    this.anyOld = db.scratch.anyIntactOld();
  }

  /** The next install op the walk has not met, if the plan wrote one. */
  private nextInstall(): { n: number; path: string; target: string | null } | undefined {
    if (this.at < this.page.length) return this.page[this.at];
    if (this.pagesEnded) return undefined;
    const planning = this.planning();
    this.page = this.db.installsAfter(this.shipment, this.after);
    this.at = 0;
    if (this.page.length === 0 && !planning) this.pagesEnded = true;
    return this.page[0];
  }

  /** Files not to build (damaged on the drive, ingest --skip-damaged): they stay out of DEST. */
  skip: ReadonlySet<string> = new Set();

  wants(r: FileRecord): boolean {
    const op = this.nextInstall();
    if (op?.path !== dbPath(r.p)) return false;
    this.at++;
    this.after = op.n;
    if (this.skip.has(r.p)) return false;
    const at = op.target === STAGED_IN_TREE ? this.writer.inTree(r.p) : this.writer.pathOf(op.n);
    // The planner marked it by the rule inTree follows.
    if (at === null) throw new Error(`${quote(r.p)} was planned to be staged in the staging tree, which cannot hold it`);
    const digest = this.anyOld && r.size > 0 ? this.db.scratch.newFile(op.path)?.digest : null;
    if (digest) {
      // A file being retired whose content is the new file's: copy it instead of building it.
      const found = this.db.scratch.retiredWith(digest);
      const from = found === undefined ? undefined : pathFromDb(found);
      // Copied on this thread: its folder in the staging tree is made here first.
      if (from !== undefined && op.target === STAGED_IN_TREE) this.writer.folderOf(at, r.p);
      if (from !== undefined && copyRetired(join(this.dest, from), at, r.size)) {
        this.writer.finishLinked(op.n, r, at);
        this.linked++;
        return false;
      }
    }
    this.pending.set(r.p, { n: op.n, at });
    return true;
  }

  fileStart(r: FileRecord): void {
    const { n, at } = this.pending.get(r.p)!;
    this.pending.delete(r.p);
    this.file = r;
    this.writer.start(n, r, at);
  }

  chunk(data: ChunkBytes): Promise<void> | void {
    this.bytesFromDrive += data.length;
    this.writer.write(data);
    // A large file's bytes queue on the stage writer's thread: the walk waits for room there rather than block in the next write.
    if (this.writer.busy) return this.writer.room();
  }

  hole(length: number): void {
    this.writer.skip(length);
  }

  async held(ref: HeldRef): Promise<void> {
    const id = Buffer.from(ref[0], 'hex');
    const row = this.db.scratch.heldAt(id);
    if (!row || row.len !== ref[1]) throw this.basisMissing(this.file!.p, `a chunk it reuses is no longer in the destination`);
    row.path = pathFromDb(row.path);
    // The undo store reads the file ahead: its id for this chunk is there once the reading passed the chunk.
    const ahead = this.pre?.any === true ? await this.pre.readUpTo(row.path, row.offset + row.len) : null;
    const known = ahead?.ids.get(row.offset);
    if (ahead && known?.len === row.len && known.id.equals(id) && this.copyChecked(row.path, row.offset, row.len, ahead)) {
      this.bytesReused += row.len;
      return;
    }
    // Into the buffer deltas are rebuilt in where the writer writes the chunk at once (as it does theirs).
    const data = this.read(row.path, row.offset, row.len, this.writer.gathering ? undefined : (this.rebuilt = grown(this.rebuilt, row.len)));
    if (!chunkId(this.key, data).equals(id)) {
      throw this.basisMissing(
        row.path,
        `${quote(row.path)} no longer holds the data ${quote(this.file!.p)} reuses (changed locally without its size or mtime changing)`,
      );
    }
    this.bytesReused += data.length;
    this.writer.write(data);
  }

  async delta(ref: DeltaRef, delta: Buffer): Promise<void> {
    const f = this.file!;
    const [basis, size, blockSize] = f.b!;
    // The old file's pieces are copied into the chunk as they are read, so one buffer serves every read; the chunk's own
    // buffer is reused too when the writer writes it at once (a file it gathers keeps its chunks until its end). Left to
    // the garbage collector, a second ingest's deltas held 29 MB more at its peak.
    const into = this.writer.gathering ? undefined : (this.rebuilt = grown(this.rebuilt, ref[4]));
    const data = await deltaChunk(
      async (offset, length) => this.read(basis, offset, length, (this.pieces = grown(this.pieces, length))),
      size,
      blockSize,
      delta,
      ref[4],
      quote(f.p),
      into,
    );
    if (data.length !== ref[4] || !chunkId(this.key, data).equals(Buffer.from(ref[0], 'hex'))) {
      throw this.basisMissing(
        basis,
        `${quote(basis)}, the basis of ${quote(f.p)}'s delta, does not hold what the shipment expects (changed locally without its size or mtime changing)`,
      );
    }
    this.deltas++;
    this.bytesFromDrive += delta.length;
    this.writer.write(data);
  }

  fileEnd(r: FileRecord): Promise<void> | void {
    this.writer.end(r);
    this.file = null;
    failpoint('stage');
    // The stage writer's thread is behind: the walk waits for it without holding the JavaScript thread, which meanwhile plans (planAndStage).
    if (this.writer.busy) return this.writer.room();
  }

  /**
   * After the walk: every file the plan stages was met. The commit installs
   * what the staging folder holds, so a file left unbuilt would be lost.
   * @throws Error when the walk and the plan disagree (a bug)
   */
  checkAllMet(): void {
    const op = this.nextInstall();
    if (op) throw new Error(`the walk did not reach ${quote(pathFromDb(op.path))}, which the plan stages`);
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  /**
   * Copies DEST's file `rel` at [offset, offset + length), a chunk whose id
   * the undo store computed when it read the file ahead, into the staged
   * file inside the kernel, when the file is still the one read then
   * (before and after the copy). False when it was not copied (nothing
   * written): the caller reads and checks it.
   * @throws BrickpostError BASIS_MISSING when the file changed or shrank during the copy
   */
  private copyChecked(rel: string, offset: number, length: number, ahead: PrestoreReading): boolean {
    const fd = this.open(rel);
    if (!this.unchangedSince(fd, ahead)) return false;
    const n = this.writer.copyFrom(fd, offset, length);
    if (n === null) return false;
    if (n !== length || !this.unchangedSince(fd, ahead))
      throw this.basisMissing(rel, `${quote(rel)} in the destination changed while this shipment was being applied`);
    return true;
  }

  /** Whether DEST's file open as `fd` is still the one the undo store read ahead. */
  private unchangedSince(fd: number, f: FileSeen): boolean {
    let st: BigIntStats;
    try {
      st = fstatSync(fd, { bigint: true });
    } catch {
      return false;
    }
    return st.ino === f.ino && st.dev === f.dev && st.size === f.size && st.mtimeNs === f.mtimeNs && st.ctimeNs === f.ctimeNs;
  }

  private basisMissing(path: string, why: string): BrickpostError {
    return new BrickpostError('BASIS_MISSING', why, { path });
  }

  /** Reads DEST's file `rel` at [offset, offset + length) (into the start of `into`, when given: a view of it), refusing anything but a regular file. */
  private read(rel: string, offset: number, length: number, into?: Buffer): Buffer {
    const fd = this.open(rel);
    const buf = into ? into.subarray(0, length) : Buffer.allocUnsafe(length);
    let at = 0;
    while (at < length) {
      let n: number;
      try {
        n = readSync(fd, buf, at, length - at, offset + at);
      } catch (e) {
        throw toEnvironmentError(e, `cannot read ${quote(rel)} in the destination`, { on: 'destination', path: join(this.dest, rel) });
      }
      if (n === 0) throw this.basisMissing(rel, `${quote(rel)} in the destination is shorter than the shipment expects`);
      at += n;
    }
    return buf;
  }

  /** DEST's file `rel` opened for reading (the last 16 stay open), not through a link. */
  private open(rel: string): number {
    let fd = this.fds.get(rel);
    if (fd === undefined) {
      if (this.fds.size >= 16) {
        const [k, old] = this.fds.entries().next().value as [string, number];
        closeSync(old);
        this.fds.delete(k);
      }
      try {
        fd = openSync(fsPath(join(this.dest, rel)), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      } catch (e) {
        // Gone or replaced (by a link, or a folder on the way by a file) is a local change; anything else is the disk's.
        if (!LOCALLY_CHANGED.has(String((e as NodeJS.ErrnoException).code)))
          throw toEnvironmentError(e, `cannot read ${quote(rel)} in the destination`, { on: 'destination' });
        throw this.basisMissing(rel, `cannot read ${quote(rel)} in the destination: ${(e as Error).message}`);
      }
      this.fds.set(rel, fd);
    }
    return fd;
  }
}

/**
 * Copies DEST's file `from` (being retired, its content the new file's) to
 * the staged path `to`: a copy, reflinked where the file system can, never
 * a hard link, so the new file and the undo copy stay independent. The
 * source must be the same regular file, unchanged (inode, size, mtime,
 * ctime), before and after the copy, so a link swapped in meanwhile is not
 * followed into the destination. False (and nothing staged) when it cannot
 * be used: the caller builds the file instead.
 */
function copyRetired(from: string, to: string, size: number): boolean {
  const before = lstatOrNull(from);
  if (!before?.isFile() || before.size !== BigInt(size)) return false;
  try {
    copyFileSync(fsPath(from), to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    const after = lstatOrNull(from);
    const copy = lstatOrNull(to);
    if (after && copy?.isFile() && copy.size === before.size && same(before, after)) return true;
  } catch {
    // Unreadable, or no room: build the file from the shipment instead.
  }
  rmSync(to, { force: true });
  return false;
}

function same(a: BigIntStats, b: BigIntStats): boolean {
  return b.isFile() && a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

function lstatOrNull(p: string): BigIntStats | null {
  try {
    return lstatSync(fsPath(p), { bigint: true });
  } catch {
    return null;
  }
}

/** `buf` when it holds `length` bytes, else a new buffer that does. */
function grown(buf: Buffer | null, length: number): Buffer {
  return buf && buf.length >= length ? buf : Buffer.allocUnsafe(length);
}
