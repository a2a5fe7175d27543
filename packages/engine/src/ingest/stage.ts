import { constants } from 'node:fs';
import { closeSync, fchmodSync, fdatasyncSync, futimesSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { chmod, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { BrickpostError, checkPath, quote, type DirRecord, type FileRecord, type ShipmentRecord } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import type { ShipmentVisitor } from '../verify/walk-shipment.js';

/** Permission bits a received entry may have: no setuid, setgid or sticky bit. */
export const MODE_MASK = 0o777;

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Seconds since the epoch, as utimes takes them, from decimal nanoseconds. */
export function nsToSeconds(ns: string): number {
  const n = BigInt(ns);
  return Number(n / 1_000_000_000n) + Number(n % 1_000_000_000n) / 1e9;
}

/**
 * Writes a shipment's tree into a fresh staging folder that only brickpost
 * creates: every path is re-checked against the path grammar, files are
 * created exclusively and without following links, permission bits are
 * masked, content is synced before commit (per file, or by one file-system sync).
 * File system calls are synchronous: for the many small files of a dataset
 * one thread-pool round trip per call costs more than the call itself. Directories get
 * their final mode and mtime in `finishDir`, after all files are in.
 */
export class StagingWriter implements ShipmentVisitor {
  private fd = -1;
  private fileAt = 0;
  files = 0;
  dirs = 0;
  bytes = 0;
  /** The dataset secret, from the manifest header (the receiver keeps it to describe what it holds). */
  secret: string | null = null;

  /** @param syncEach fsync every file before closing it (where a file-system sync is not available). */
  constructor(
    readonly root: string,
    private readonly syncEach: boolean,
  ) {}

  header(r: ShipmentRecord): void {
    this.secret = r.secret;
  }

  dir(r: DirRecord): void {
    checkPath(r.p);
    try {
      mkdirSync(join(this.root, r.p), { mode: 0o700 });
    } catch (e) {
      throw toEnvironmentError(e, 'cannot create a staged folder');
    }
    this.dirs++;
  }

  fileStart(r: FileRecord): void {
    checkPath(r.p);
    try {
      this.fd = openSync(join(this.root, r.p), CREATE, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new BrickpostError('UNSAFE_PATH', `manifest entry ${quote(r.p)} is written twice`);
      throw toEnvironmentError(e, 'cannot create a staged file');
    }
    this.fileAt = 0;
  }

  chunk(data: Buffer): void {
    try {
      let off = 0;
      while (off < data.length) off += writeSync(this.fd, data, off, data.length - off, this.fileAt + off);
    } catch (e) {
      throw toEnvironmentError(e, 'cannot write a staged file');
    }
    this.fileAt += data.length;
    this.bytes += data.length;
  }

  fileEnd(r: FileRecord): void {
    const fd = this.fd;
    this.fd = -1;
    try {
      fchmodSync(fd, r.mode & MODE_MASK);
      const t = nsToSeconds(r.mtime);
      futimesSync(fd, t, t);
      if (this.syncEach) fdatasyncSync(fd);
    } catch (e) {
      throw toEnvironmentError(e, 'cannot finish a staged file');
    } finally {
      closeSync(fd);
    }
    this.files++;
  }

  /** Directories whose mode lacks owner write or search: restrictDir must run on them after commit. */
  restricted = 0;

  /** Sets a staged directory's final mode and mtime. */
  async finishDir(r: DirRecord): Promise<void> {
    checkPath(r.p);
    if ((r.mode & 0o700) !== 0o700) this.restricted++;
    const p = join(this.root, r.p);
    // Keep owner write and search until commit so nothing below is locked out.
    await chmod(p, (r.mode & MODE_MASK) | 0o700);
    const t = nsToSeconds(r.mtime);
    await utimes(p, t, t);
  }

  async abort(): Promise<void> {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/**
 * Applies the exact modes of directories whose mode lacked owner write or
 * search, once the tree is committed.
 */
export async function restrictDir(root: string, r: DirRecord): Promise<void> {
  if ((r.mode & 0o700) === 0o700) return;
  const p = join(root, r.p);
  const t = nsToSeconds(r.mtime);
  await chmod(p, r.mode & MODE_MASK);
  await utimes(p, t, t).catch(() => undefined);
}
