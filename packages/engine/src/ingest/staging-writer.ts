import { constants } from 'node:fs';
import { getSystemErrorMap } from 'node:util';
import { closeSync, fchmodSync, fdatasyncSync, ftruncateSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as posix from '@brickpost/posix';
import { assertEntryPath, BrickpostError, quote, type FileRecord } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { failpointError, fsError } from '../io/failpoint.js';
import { clampedNs, setTimesFd } from '../io/times.js';
import type { AttrApplier } from './attrs.js';
import { setMeta } from './meta.js';
import { modeUnder, type ApplyPolicy } from './policy.js';
import { fromNative, native } from '../io/native.js';
import { fsPath } from '../io/fs-path.js';
import { makeFoldersSync } from '../io/folders.js';
import { stagingTreeOf } from './state.js';
import type { ChunkBytes } from '../verify/native-readers.js';
import type { StageFailure, StageWriter } from '@brickpost/native';

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Bytes of a staged file written between two requests to start writing them to the disk. */
const WRITEBACK_EVERY = 8 << 20;

/** Files up to this size, whose bytes are all in hand at their end, are handed whole to the native core's stage writer. */
const QUEUE_MAX = 1 << 20;

/** Staged paths in the staging tree stay this short (bytes): longer ones, which DEST's shorter prefix may still allow, stage flat. */
const TREE_PATH_MAX = 4000;

/** Errors of copy_file_range that mean it cannot copy between these files (or at all here): the bytes are written instead. */
const CANNOT_COPY = new Set(['ENOSYS', 'EXDEV', 'EINVAL', 'EOPNOTSUPP', 'ENOTSUP', 'EPERM', 'ERR_POSIX_UNAVAILABLE']);

/**
 * Writes the files a shipment changes into the staging folder, one flat file
 * per install op (staging/ID/N), created exclusively and without following
 * links; holes of sparse files are skipped (the file system keeps them
 * unallocated); then the attributes, the mode and the mtime of the manifest
 * as the apply policy allows; content is synced before commit (per file, or
 * by one file-system sync). File system calls are synchronous: for many
 * small files one thread-pool round trip per call costs more than the call
 * itself. Where the native core is there, a small file with no owner,
 * extended attributes or ACL to set is gathered instead and handed whole
 * to its stage writer, whose thread creates, writes, finishes and closes
 * it, in order, beside the JavaScript thread; flush() waits for them and
 * raises the first failure as the synchronous calls would have. A larger
 * file is opened here and its bytes are written by that same thread, in
 * order, as they come (the kernel's copy into the page cache was a fifth of
 * a 2 GiB ingest's JavaScript thread, and the pool waited for it), then
 * finished and closed there too; only a file whose owner, extended
 * attributes or ACL are set through its descriptor is written here.
 */
export class StagingWriter {
  private fd = -1;
  /** The staged file being written, for messages. */
  private current = '';
  private fileAt = 0;
  /** Where the last write of the current file ended (less than its size when it ends in a hole). */
  private dataEnd = 0;
  /** Bytes of the current file before this offset are being written to the disk already (startWriteback). */
  private kicked = 0;
  files = 0;
  bytes = 0;
  /** copy_file_range failed as unsupported once: not tried again. */
  private noCopy = !posix.available;
  /** startWriteback is not available here (or was refused once): not tried again. */
  private noWriteback = !posix.available;
  /** The native stage writer, made on first use (undefined: not yet; null: no native core). */
  private queue: StageWriter | null | undefined;
  /** The bytes of the current file, when it goes to the stage writer, and where each goes. */
  private gathered: { parts: ChunkBytes[]; offsets: number[] } | null = null;
  /** The current file is open here and written by the stage writer's thread (queued writes, then its finish). */
  private queued = false;
  /** The manifest entry of the current file, for messages. */
  private entry = '';

  /** The staging tree (stagingTreeOf), and the folder of it the last file went to. */
  private readonly tree: string;
  private treeDir = '';

  /** @param syncEach - fsync every file before closing it (where a file-system sync is not available). */
  constructor(
    readonly root: string,
    private readonly syncEach: boolean,
    private readonly policy: ApplyPolicy,
    private readonly applier: AttrApplier,
  ) {
    this.tree = stagingTreeOf(root);
  }

  /** The staged file of install op n, flat. */
  pathOf(n: number): string {
    return join(this.root, String(n));
  }

  /**
   * The staged file of manifest entry `rel` in the staging tree: for a file
   * in a folder the shipment creates, which the commit then moves in whole,
   * one rename for everything below it rather than one per file. Null where
   * the path cannot be staged so (a name that is not UTF-8, which the stage
   * writer takes as a string, or a path too long with the staging prefix):
   * the file is staged flat (pathOf). Its folder is made by whoever writes
   * the file: the stage writer's thread (a folder costs ext4 about 0.1 ms:
   * 0.3 s of 300,000 files in 3,300 folders, off the JavaScript thread), or
   * folderOf before this thread writes it.
   */
  inTree(rel: string): string | null {
    const at = treePath(this.tree, rel);
    if (at === null) return null;
    // The stage writer makes folders below the tree, which is made here.
    if (this.madeDirs.length === 0) this.folderOf(`${this.tree}/.`, rel);
    return at;
  }

  /** Makes the folder of `at`, a path inTree gave for `rel`, before this thread writes the file. */
  folderOf(at: string, rel: string): void {
    const dir = dirname(at);
    if (dir === this.treeDir) return;
    try {
      this.makeTreeDir(dir);
    } catch (e) {
      throw toEnvironmentError(e, `cannot create the staging folder of ${quote(rel)}`, { on: 'destination', path: dir });
    }
    this.treeDir = dir;
  }

  /**
   * Makes folder `dir` of the staging tree and those missing above it. The
   * folders made last, from the tree down, are kept: files come in manifest
   * order (depth-first), so each folder is made once, below one that
   * exists, without a failed call on the way. A folder met again, or made
   * by the stage writer's thread meanwhile, is found (EEXIST).
   */
  private makeTreeDir(dir: string): void {
    const made = this.madeDirs;
    if (made.length === 0) {
      makeFoldersSync(this.tree, 0o700);
      made.push(this.tree);
    }
    let top = made[made.length - 1]!;
    while (made.length > 1 && dir !== top && !dir.startsWith(`${top}/`)) {
      made.pop();
      top = made[made.length - 1]!;
    }
    if (dir === top) return;
    for (let at = dir.indexOf('/', top.length + 1); ; at = dir.indexOf('/', at + 1)) {
      const d = at < 0 ? dir : dir.slice(0, at);
      try {
        mkdirSync(d, 0o700);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw e;
      }
      made.push(d);
      if (at < 0) return;
    }
  }

  /** The chain of staging-tree folders made last (makeTreeDir), each below the one before. */
  private readonly madeDirs: string[] = [];

  /** Whether the current file's bytes are gathered for the stage writer: write() then keeps each buffer until end(). */
  get gathering(): boolean {
    return this.gathered !== null;
  }

  /** Starts the staged file of install op n, at `at` (flat, or inTree). */
  start(n: number, r: FileRecord, at: string = this.pathOf(n)): void {
    assertEntryPath(r.p);
    this.current = at;
    this.fileAt = 0;
    this.dataEnd = 0;
    this.kicked = 0;
    this.entry = r.p;
    const fdFree = !this.applier.usesFd(r) && this.stageWriter() !== null;
    if (r.size <= QUEUE_MAX && fdFree) {
      this.gathered = { parts: [], offsets: [] };
      return;
    }
    this.queued = fdFree;
    if (at.startsWith(`${this.tree}/`)) this.folderOf(at, r.p);
    try {
      this.fd = openSync(this.current, CREATE, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new BrickpostError('UNSAFE_PATH', `manifest entry ${quote(r.p)} is written twice`);
      throw toEnvironmentError(e, `cannot create the staged file of ${quote(r.p)}`, { on: 'destination' });
    }
  }

  private stageWriter(): StageWriter | null {
    if (this.queue === undefined) {
      const core = native();
      this.queue = core ? new core.StageWriter(this.tree) : null;
    }
    return this.queue;
  }

  write(data: ChunkBytes): void {
    const n = data.length;
    try {
      failpointError('stage-write', () => fsError('ENOSPC', 'no space left on device'));
      if (this.gathered) {
        this.gathered.parts.push(data);
        this.gathered.offsets.push(this.fileAt);
      } else if (this.queued) {
        const end = this.fileAt + n;
        const kick = !this.syncEach && end - this.kicked >= WRITEBACK_EVERY ? this.kicked : -1;
        if (kick >= 0) this.kicked = end;
        const failed = this.queue!.write(this.fd, this.current, this.entry, this.fileAt, data, kick);
        if (failed) {
          // Nothing queued after a failure touches a descriptor: the file is closed here, and staging stops.
          closeSync(this.fd);
          this.fd = -1;
          this.queued = false;
          throw failure(failed);
        }
      } else if (!Buffer.isBuffer(data)) {
        // Bytes the native core holds are written (and freed) by it.
        try {
          data.writeTo(this.fd, this.fileAt);
        } catch (e) {
          throw fromNative(e, (errno) => toEnvironmentError(errno, 'cannot write a staged file', { on: 'destination', path: this.current }));
        }
      } else {
        let off = 0;
        while (off < data.length) off += writeSync(this.fd, data, off, data.length - off, this.fileAt + off);
      }
    } catch (e) {
      throw toEnvironmentError(e, 'cannot write a staged file', { on: 'destination', path: this.current });
    }
    this.fileAt += n;
    this.dataEnd = this.fileAt;
    this.bytes += n;
    if (this.fileAt - this.kicked >= WRITEBACK_EVERY && this.fd >= 0 && !this.queued) this.writeback(this.fd);
  }

  /**
   * Has the kernel start writing what the current file got since the last
   * call to the disk, where one file-system sync makes it durable before
   * the commit: left to the end, 2 GB of staged files took that sync a
   * second of a 2 GiB ingest with nothing else to do.
   */
  private writeback(fd: number): void {
    if (this.syncEach || this.noWriteback) return;
    if (!posix.startWriteback(fd, this.kicked, 0)) this.noWriteback = true;
    this.kicked = this.fileAt;
  }

  /**
   * Copies `length` bytes of the open file `fd` from `offset` to the
   * current file's next bytes inside the kernel (copy_file_range), for
   * bytes already checked. Returns the bytes copied (fewer where `fd`
   * ends), or null where the system cannot copy them so (nothing written):
   * the caller writes them instead.
   */
  copyFrom(fd: number, offset: number, length: number): number | null {
    if (this.noCopy || this.gathered) return null;
    let n: number;
    try {
      failpointError('stage-write', () => fsError('ENOSPC', 'no space left on device'));
      n = posix.copyRange(fd, offset, this.fd, this.fileAt, length);
    } catch (e) {
      if (CANNOT_COPY.has(String((e as NodeJS.ErrnoException).code))) {
        this.noCopy = true;
        return null;
      }
      throw toEnvironmentError(e, 'cannot write a staged file', { on: 'destination', path: this.current });
    }
    this.fileAt += n;
    this.dataEnd = this.fileAt;
    this.bytes += n;
    // Queued writes kick their own writeback from where the last one ended, which then covers these bytes too.
    if (this.fileAt - this.kicked >= WRITEBACK_EVERY && !this.queued) this.writeback(this.fd);
    return n;
  }

  /** A hole of `length` bytes: nothing written, the next data lands after it. */
  skip(length: number): void {
    this.fileAt += length;
  }

  end(r: FileRecord): void {
    if (this.gathered) {
      const { parts, offsets } = this.gathered;
      this.gathered = null;
      // It makes no call on a descriptor here (usesFd): it only counts what it does not apply.
      this.applier.toFd(-1, r.p, r, false);
      const failed = this.queue!.file(this.current, r.p, parts, offsets, r.size, modeUnder(this.policy, r.mode), clampedNs(r.mtime), this.syncEach);
      if (failed) throw failure(failed);
      this.files++;
      return;
    }
    const fd = this.fd;
    this.fd = -1;
    if (this.queued) {
      this.queued = false;
      // As for a gathered file: nothing to apply through the descriptor, only what is not applied to count.
      this.applier.toFd(-1, r.p, r, false);
      const kick = !this.syncEach && this.dataEnd > this.kicked ? this.kicked : -1;
      // The descriptor is the stage writer's from here on: it closes it, whatever came before.
      const failed = this.queue!.finish(fd, this.current, r.p, r.size, this.dataEnd, modeUnder(this.policy, r.mode), clampedNs(r.mtime), this.syncEach, kick);
      if (failed) throw failure(failed);
      this.files++;
      return;
    }
    try {
      // A file that ends in a hole gets its length here.
      if (this.dataEnd < r.size) ftruncateSync(fd, r.size);
      this.applier.toFd(fd, r.p, r, false);
      fchmodSync(fd, modeUnder(this.policy, r.mode));
      setTimesFd(fd, r.mtime);
      if (this.syncEach) fdatasyncSync(fd);
      else if (this.dataEnd > this.kicked) this.writeback(fd);
    } catch (e) {
      throw toEnvironmentError(e, `cannot finish the staged file of ${quote(r.p)}`, { on: 'destination', path: this.current });
    } finally {
      closeSync(fd);
    }
    this.files++;
  }

  /** Gives a file staged another way (a copy of a retired file, at `at`) its attributes, mode and mtime. */
  finishLinked(n: number, r: FileRecord, at: string = this.pathOf(n)): void {
    try {
      setMeta(at, modeUnder(this.policy, r.mode), r.mtime, 'file', { attrs: r, applier: this.applier });
      if (this.syncEach) {
        const fd = openSync(at, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
        try {
          fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
    } catch (e) {
      throw toEnvironmentError(e, `cannot finish the staged file of ${quote(r.p)}`, { on: 'destination', path: at });
    }
    this.files++;
  }

  /** Whether the stage writer has much queued: room() then waits without blocking the JavaScript thread, as end() would. */
  get busy(): boolean {
    return this.queue?.busy === true;
  }

  /** Resolves once the stage writer has room again (or stopped on a failure, which the next call reports). */
  room(): Promise<void> {
    return this.queue ? this.queue.room() : Promise.resolve();
  }

  /**
   * Waits until every file handed to the stage writer is written.
   * @throws BrickpostError the first failure, as the synchronous calls word it
   */
  async flush(): Promise<void> {
    const failed = this.queue ? await this.queue.flush() : null;
    if (failed) throw failure(failed);
  }

  /** Stops: the file open is closed, the stage writer writes nothing more (it finishes the file it is on first). */
  abort(): void {
    // The stage writer first: once it stopped, none of its queued writes uses the open file any more.
    this.queue?.abort();
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.gathered = null;
    this.queued = false;
  }
}

/**
 * The path in the staging tree `tree` of manifest entry `rel`, or null
 * where it cannot be staged there (StagingWriter.inTree): the planner marks
 * the install ops of files staged so by this same rule.
 */
export function treePath(tree: string, rel: string): string | null {
  // A manifest entry path (checked: no empty, `.` or `..` name) joins as it is.
  const at = `${tree}/${rel}`;
  return typeof fsPath(at) === 'string' && Buffer.byteLength(at) <= TREE_PATH_MAX ? at : null;
}

/** A stage writer's failure as the error the synchronous calls raise. */
function failure(f: StageFailure): BrickpostError {
  if (f.errno === 0) return new BrickpostError('IO', `staging was stopped before ${quote(f.entry)} was written`);
  if (f.step === 'create' && f.syscall === 'open' && getSystemErrorMap().get(-f.errno)?.[0] === 'EEXIST')
    return new BrickpostError('UNSAFE_PATH', `manifest entry ${quote(f.entry)} is written twice`);
  const [name, words] = getSystemErrorMap().get(-f.errno) ?? ['UNKNOWN', `unknown error ${f.errno}`];
  const e = Object.assign(new Error(`${name}: ${words}, ${f.syscall} '${f.path}'`), { errno: -f.errno, code: name, syscall: f.syscall, path: f.path });
  if (f.step === 'create') return toEnvironmentError(e, `cannot create the staged file of ${quote(f.entry)}`, { on: 'destination' });
  if (f.step === 'write') return toEnvironmentError(e, 'cannot write a staged file', { on: 'destination', path: f.path });
  return toEnvironmentError(e, `cannot finish the staged file of ${quote(f.entry)}`, { on: 'destination', path: f.path });
}
