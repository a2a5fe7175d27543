import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { age, BrickpostError, frame, isBrickpostError, packPath, parseStrictJson, quote } from '@brickpost/manifest';
import { openDriveFile } from '../io/read-limited.js';
import { toEnvironmentError } from '../io/errors.js';
import { failpointError, fsError } from '../io/failpoint.js';
import { HEADER_FRAME_NIBBLE } from '../io/header-frame.js';
import { PACK_FORMAT } from '../drive/layout.js';
import { openAgeHandle } from './age-handle.js';

const BLOCK = 1 << 20;

/**
 * Reads one pack's plaintext mostly front to back. Sequential reads stream
 * through the file once, hashing every byte for the fixity check at the end;
 * a read behind the cursor (a chunk deduplicated against an earlier one) is
 * served by decrypting just the STREAM chunks that cover it. Every plaintext
 * byte returned has passed age's authentication.
 */
export class PackCursor {
  private readonly hash: Hash = createHash('sha256');
  private filePos = 0;
  private plainPos = 0;
  private queue: Buffer[] = [];
  private queued = 0;
  private finalDone = false;
  private readonly dec: age.PayloadDecryptor;

  private constructor(
    readonly index: number,
    private readonly fh: FileHandle,
    readonly path: string,
    private readonly size: number,
    private readonly fileKey: Buffer,
    private readonly nonce: Buffer,
    private readonly payloadStart: number,
  ) {
    this.dec = new age.PayloadDecryptor(fileKey, nonce);
  }

  /**
   * Opens pack `index` of a bag, unwraps its file key and checks its header
   * frame names this shipment and index (a pack copied from another shipment
   * is refused).
   * @throws BrickpostError FILE_MISSING, NO_MATCHING_KEY, HEADER_MAC_MISMATCH, MALFORMED, TRUNCATED, PAYLOAD_CORRUPT
   */
  static async open(bag: string, index: number, shipment: string, identities: age.Identity[]): Promise<PackCursor> {
    const { fh, rel, path } = await openPackFile(bag, index);
    try {
      const { size, fileKey, nonce, payloadStart, head } = await openAgeHandle(fh, rel, identities, path);
      const c = new PackCursor(index, fh, path, size, fileKey, nonce, payloadStart);
      c.hash.update(head.subarray(0, payloadStart));
      c.filePos = payloadStart;
      await c.checkHeaderFrame(rel, shipment);
      return c;
    } catch (e) {
      await fh.close();
      if (isBrickpostError(e) && !e.path)
        throw new BrickpostError(e.code, e.message.includes(rel) ? `pack ${e.message}` : `pack ${quote(rel)}: ${e.message}`, {
          cause: e,
          path,
          ...(e.hint ? { hint: e.hint } : {}),
        });
      throw e;
    }
  }

  private async checkHeaderFrame(rel: string, shipment: string): Promise<void> {
    const head = await this.read(0, 8);
    const size = head.readUInt32LE(4);
    if (size > 4096) throw new BrickpostError('MALFORMED', `pack ${quote(rel)} header frame is ${size} bytes`);
    const f = frame.readSkippableFrame(Buffer.concat([head, await this.read(8, size)]));
    if (f.magicNibble !== HEADER_FRAME_NIBBLE) throw new BrickpostError('MALFORMED', `pack ${quote(rel)} does not open with a brickpost header frame`);
    const text = f.payload.toString('utf8');
    const lines = text.split('\n');
    if (lines[0] !== PACK_FORMAT || lines.length !== 3 || lines[2] !== '') {
      throw new BrickpostError('UNSUPPORTED_VERSION', `pack ${quote(rel)} is not ${PACK_FORMAT}: ${quote(text.slice(0, 40))}`);
    }
    const meta = parseStrictJson(lines[1]!, { where: `pack ${rel} header` }) as { shipment?: unknown; pack?: unknown };
    if (meta.shipment !== shipment || meta.pack !== this.index) {
      throw new BrickpostError(
        'MALFORMED',
        `pack ${quote(rel)} belongs to shipment ${quote(String(meta.shipment))} pack ${String(meta.pack)}, not to ${quote(shipment)} pack ${this.index}`,
        {
          hint: 'a pack from another shipment was put on this drive',
        },
      );
    }
  }

  /**
   * Returns `length` plaintext bytes at `offset`.
   * @throws BrickpostError TRUNCATED, PAYLOAD_CORRUPT, MALFORMED
   */
  async read(offset: number, length: number): Promise<Buffer> {
    return this.named(() => this.readUnnamed(offset, length));
  }

  /** Adds the pack's name to errors raised below (age errors do not know it). */
  private async named<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      const rel = packPath(this.index);
      if (isBrickpostError(e) && !e.message.includes(rel))
        throw new BrickpostError(e.code, `pack ${quote(rel)}: ${e.message}`, { cause: e, path: this.path, ...(e.hint ? { hint: e.hint } : {}) });
      throw toEnvironmentError(e, `cannot read pack ${rel}`, { on: 'drive', path: this.path });
    }
  }

  private async readUnnamed(offset: number, length: number): Promise<Buffer> {
    if (offset < this.plainPos) return this.readBehind(offset, length);
    if (offset > this.plainPos) await this.skip(offset - this.plainPos);
    while (this.queued < length) {
      if (!(await this.fill()))
        throw new BrickpostError('TRUNCATED', `pack ${quote(packPath(this.index))} ends before plaintext offset ${offset + length}`, { path: this.path });
    }
    return this.take(length);
  }

  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    let out: Buffer;
    const first = this.queue[0]!;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.queue.shift();
      else this.queue[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let at = 0;
      while (at < n) {
        const b = this.queue[0]!;
        const k = Math.min(b.length, n - at);
        b.copy(out, at, 0, k);
        at += k;
        if (k === b.length) this.queue.shift();
        else this.queue[0] = b.subarray(k);
      }
    }
    this.queued -= n;
    this.plainPos += n;
    return out;
  }

  private async skip(n: number): Promise<void> {
    while (n > 0) {
      if (this.queued === 0 && !(await this.fill()))
        throw new BrickpostError('TRUNCATED', `pack ${quote(packPath(this.index))} ends early`, { path: this.path });
      const k = Math.min(n, this.queued);
      this.take(k);
      n -= k;
    }
  }

  private readAt(buf: Buffer, pos: number): Promise<{ bytesRead: number }> {
    failpointError('drive-read', () => fsError('EIO', 'i/o error'));
    return this.fh.read(buf, 0, buf.length, pos);
  }

  /** Reads and decrypts the next block; false at the end of the file. */
  private async fill(): Promise<boolean> {
    if (this.finalDone) return false;
    if (this.filePos >= this.size) {
      for (const p of this.dec.final()) this.push(p);
      this.finalDone = true;
      return this.queued > 0;
    }
    const buf = Buffer.allocUnsafe(Math.min(BLOCK, this.size - this.filePos));
    const { bytesRead } = await this.readAt(buf, this.filePos).catch((e: unknown) => {
      throw toEnvironmentError(e, `cannot read pack ${packPath(this.index)}`, { on: 'drive', path: this.path });
    });
    if (bytesRead === 0) throw new BrickpostError('TRUNCATED', `pack ${quote(packPath(this.index))} shrank while being read`, { path: this.path });
    const data = buf.subarray(0, bytesRead);
    this.filePos += bytesRead;
    this.hash.update(data);
    for (const p of this.dec.update(data)) this.push(p);
    return true;
  }

  private push(b: Buffer): void {
    if (b.length === 0) return;
    this.queue.push(b);
    this.queued += b.length;
  }

  /** How many STREAM chunks (64 KiB of plaintext each, the last shorter) the pack's file holds. */
  get streamChunks(): number {
    return Math.max(1, Math.ceil((this.size - this.payloadStart) / (65536 + 16)));
  }

  /** Reads plaintext anywhere in the pack without moving the cursor. */
  async readRandom(offset: number, length: number): Promise<Buffer> {
    return this.named(() => this.readBehind(offset, length));
  }

  private async readBehind(offset: number, length: number): Promise<Buffer> {
    return age.readPlainRange(
      async (pos, len) => {
        const b = Buffer.allocUnsafe(len);
        const { bytesRead } = await this.fh.read(b, 0, len, pos);
        return b.subarray(0, bytesRead);
      },
      this.size,
      this.payloadStart,
      this.fileKey,
      this.nonce,
      offset,
      length,
    );
  }

  /**
   * Reads the rest of the pack and checks its total plaintext size and the
   * SHA-256 of the whole file; closes it. Returns the plaintext size.
   * @throws BrickpostError FIXITY_MISMATCH, MALFORMED, TRUNCATED, PAYLOAD_CORRUPT
   */
  async finish(expectedPlain: number | null, expectedSha256: string): Promise<number> {
    return this.named(() => this.finishUnnamed(expectedPlain, expectedSha256));
  }

  private async finishUnnamed(expectedPlain: number | null, expectedSha256: string): Promise<number> {
    try {
      while (await this.fill()) {
        this.plainPos += this.queued;
        this.queue = [];
        this.queued = 0;
      }
      this.plainPos += this.queued;
      if (expectedPlain !== null && this.plainPos !== expectedPlain) {
        throw new BrickpostError(
          'MALFORMED',
          `pack ${quote(packPath(this.index))} holds ${this.plainPos} plaintext bytes, the manifest says ${expectedPlain}`,
          { path: this.path },
        );
      }
      if (this.hash.digest('hex') !== expectedSha256) {
        throw new BrickpostError('FIXITY_MISMATCH', `pack ${quote(packPath(this.index))} does not match its SHA-256 in the signed payload manifest`, {
          path: this.path,
        });
      }
      return this.plainPos;
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }
}

/**
 * Opens pack `index` of the bag at `bag` for reading, as a drive file.
 * @throws BrickpostError FILE_MISSING (naming the pack), and what openDriveFile throws
 */
export async function openPackFile(bag: string, index: number): Promise<{ fh: FileHandle; rel: string; path: string }> {
  const rel = packPath(index);
  const path = join(bag, rel);
  try {
    return { fh: await openDriveFile(path, `pack ${quote(rel)}`), rel, path };
  } catch (e) {
    if (isBrickpostError(e) && e.code === 'FILE_MISSING') throw new BrickpostError('FILE_MISSING', `pack ${quote(rel)} is missing`, { path });
    throw e;
  }
}
