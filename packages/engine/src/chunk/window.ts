import { readSync } from 'node:fs';
import { findCut } from './cut.js';
import { CHUNK_PARAMS_V1 } from './params.js';

/**
 * A file read through a buffer and cut into chunks with the v1 chunker, as
 * the cutter thread (pack) and the folder-scan threads (signature files)
 * both do. Exactly `size` bytes are cut, the size the file had when it was
 * listed: a file that shrank while being read is padded with zeros, one
 * that grew is cut at `size`, and `changed` says which.
 */
export class CutWindow {
  readonly buf: Buffer;
  private fd = -1;
  private size = 0;
  /** Bytes of the file read so far. */
  readPos = 0;
  private pos = 0;
  private fill = 0;
  changed: string | undefined;

  /** @param block - bytes read at a time */
  constructor(block: number) {
    this.buf = Buffer.allocUnsafeSlow(block + CHUNK_PARAMS_V1.max);
  }

  /** Starts on the open file `fd` of `size` bytes (the caller closes it). */
  reset(fd: number, size: number): void {
    this.fd = fd;
    this.size = size;
    this.readPos = this.pos = this.fill = 0;
    this.changed = undefined;
  }

  /**
   * The file's next chunk, a view into the buffer valid until the next call,
   * or null when the file is done.
   */
  next(): Buffer | null {
    for (;;) {
      const eof = this.readPos === this.size;
      const cut = findCut(this.buf, this.pos, this.fill, eof);
      if (cut > 0) {
        const chunk = this.buf.subarray(this.pos, this.pos + cut);
        this.pos += cut;
        return chunk;
      }
      if (cut === 0 || (eof && this.pos === this.fill)) return null;
      this.refill();
    }
  }

  private refill(): void {
    const buf = this.buf;
    buf.copyWithin(0, this.pos, this.fill);
    this.fill -= this.pos;
    this.pos = 0;
    const want = Math.min(buf.length - this.fill, this.size - this.readPos);
    let got = 0;
    while (got < want) {
      const n = readSync(this.fd, buf, this.fill + got, want - got, this.readPos + got);
      if (n === 0) break;
      got += n;
    }
    if (got < want) {
      this.changed = `shrank while being read; its last ${this.size - this.readPos - got} bytes were taken as zeros`;
      buf.fill(0, this.fill + got, this.fill + want);
    }
    this.fill += want;
    this.readPos += want;
    if (this.readPos === this.size && !this.changed && readSync(this.fd, Buffer.allocUnsafe(1), 0, 1, this.size) > 0) {
      this.changed = `grew while being read; only its first ${this.size} bytes were taken`;
    }
  }
}
