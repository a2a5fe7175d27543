import { constants } from 'node:fs';
import { chmodSync, closeSync, fchmodSync, fdatasyncSync, futimesSync, openSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BrickpostError, checkPath, quote, type FileRecord } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { failpointError, fsError } from '../io/failpoint.js';
import { fromNative } from '../io/native.js';
import type { ChunkBytes } from '../verify/native-readers.js';

/**
 * Permission bits a received entry may have: no setuid, setgid or sticky
 * bit, and no write bit for group or other, so a drive gives a file at most
 * 0644 (0755 when executable) and a folder at most 0755.
 */
export const MODE_MASK = 0o755;

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Seconds since the epoch, as utimes takes them, from decimal nanoseconds. */
export function nsToSeconds(ns: string): number {
  const n = BigInt(ns);
  return Number(n / 1_000_000_000n) + Number(n % 1_000_000_000n) / 1e9;
}

/**
 * Writes the files a shipment changes into the staging folder, one flat file
 * per install op (staging/ID/N), created exclusively and without following
 * links, with masked permission bits and the manifest's mtime; content is
 * synced before commit (per file, or by one file-system sync). File system
 * calls are synchronous: for many small files one thread-pool round trip per
 * call costs more than the call itself.
 */
export class StagingWriter {
  private fd = -1;
  private fileAt = 0;
  files = 0;
  bytes = 0;

  /** @param syncEach fsync every file before closing it (where a file-system sync is not available). */
  constructor(
    readonly root: string,
    private readonly syncEach: boolean,
  ) {}

  /** The staged file of install op n. */
  pathOf(n: number): string {
    return join(this.root, String(n));
  }

  start(n: number, r: FileRecord): void {
    checkPath(r.p);
    try {
      this.fd = openSync(this.pathOf(n), CREATE, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new BrickpostError('UNSAFE_PATH', `manifest entry ${quote(r.p)} is written twice`);
      throw toEnvironmentError(e, 'cannot create a staged file');
    }
    this.fileAt = 0;
  }

  write(data: ChunkBytes): void {
    try {
      failpointError('stage-write', () => fsError('ENOSPC', 'no space left on device'));
      if (!Buffer.isBuffer(data)) {
        // Bytes the native core holds are written (and freed) by it.
        try {
          data.writeTo(this.fd, this.fileAt);
        } catch (e) {
          throw fromNative(e);
        }
      } else {
        let off = 0;
        while (off < data.length) off += writeSync(this.fd, data, off, data.length - off, this.fileAt + off);
      }
    } catch (e) {
      throw toEnvironmentError(e, 'cannot write a staged file');
    }
    this.fileAt += data.length;
    this.bytes += data.length;
  }

  end(r: FileRecord): void {
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

  /** Gives a file staged another way (a copy of a retired file) its mode and mtime. */
  finishLinked(n: number, r: FileRecord): void {
    try {
      chmodSync(this.pathOf(n), r.mode & MODE_MASK);
      const t = nsToSeconds(r.mtime);
      utimesSync(this.pathOf(n), t, t);
      if (this.syncEach) {
        const fd = openSync(this.pathOf(n), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
        try {
          fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
    } catch (e) {
      throw toEnvironmentError(e, 'cannot finish a staged file');
    }
    this.files++;
  }

  abort(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
