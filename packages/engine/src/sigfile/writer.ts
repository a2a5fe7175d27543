import { rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BrickpostError, checkPath, CHUNKS_PER_RECORD, minisign, quote, RECORD_LIMITS } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { headerFrame } from '../io/header-frame.js';
import { LineBlocks } from '../io/line-blocks.js';
import { SeqWriter } from '../io/seq-writer.js';
import { syncDir } from '../io/sync.js';
import { signDetached } from './detached.js';
import { checkHeader, SIGNATURE_FORMAT, SigRecordOrder, sigTrustedComment, type SigChunk, type SigHeader, type SigRecord } from './records.js';

const HEX64 = /^[0-9a-f]{64}$/;

/** What close() reports. */
export interface SignatureFileTotals {
  /** SHA-256 (hex) of the file, as a shipment built against it names it (`against`). */
  sha256: string;
  files: number;
  chunks: number;
  bytes: number;
}

/**
 * Writes a signature or request file (FORMAT.md §signature-file): a
 * skippable frame naming the format, then zstd frames of NDJSON records,
 * then FILE.minisig. The file is written under a temporary name and renamed
 * into place by close(), so FILE is never seen half written. Records are
 * checked as a reader would check them; memory holds two blocks of lines at most.
 */
export class SignatureFileWriter {
  private readonly blocks = new LineBlocks((f) => this.raw(f), 3);
  private readonly prehash = minisign.createPrehash();
  private readonly order = new SigRecordOrder('signature file being written');
  private line = 0;
  private done = false;

  private constructor(
    private readonly out: SeqWriter,
    readonly path: string,
    readonly header: SigHeader,
  ) {}

  /**
   * Creates FILE's temporary file and writes the header.
   * @throws BrickpostError MALFORMED (a header field out of range), NO_SPACE, PERMISSION, IO
   */
  static async create(path: string, header: Omit<SigHeader, 'created' | 'chunker'>): Promise<SignatureFileWriter> {
    const full: SigHeader = { ...header, created: new Date().toISOString(), chunker: 'fastcdc-v1' };
    const record = { t: 'signature', format: SIGNATURE_FORMAT, ...full };
    checkHeader(record, 'signature file header');
    const tmp = `${path}.part-${process.pid}`;
    await rm(tmp, { force: true });
    const w = new SignatureFileWriter(await SeqWriter.create(tmp), path, full);
    await w.raw(headerFrame(SIGNATURE_FORMAT));
    await w.push(JSON.stringify(record));
    return w;
  }

  /**
   * Adds a file of `size` bytes and its chunks in order ([id, length]; an id
   * is 32 bytes or 64 lower-case hex digits).
   * @throws BrickpostError UNSAFE_PATH (p breaks the path grammar), USAGE (bad chunk, lengths not adding up to size)
   */
  async addFile(p: string, size: number, chunks: Iterable<[Buffer | string, number]>): Promise<void> {
    checkPath(p, 'signature file');
    if (!Number.isSafeInteger(size) || size < 0) throw new BrickpostError('USAGE', `size ${size} of ${quote(p)} is not a byte count`);
    let c: SigChunk[] = [];
    let first = true;
    let sum = 0;
    const flush = async (): Promise<void> => {
      await this.record(first ? { t: 'file', p, size, c } : { t: 'more', c });
      first = false;
      c = [];
    };
    for (const [id, len] of chunks) {
      const hex = typeof id === 'string' ? id : id.toString('hex');
      if (!HEX64.test(hex)) throw new BrickpostError('USAGE', `chunk id of ${quote(p)} is not 32 bytes: ${quote(hex)}`);
      if (!Number.isInteger(len) || len < 1 || len > RECORD_LIMITS.maxChunkLength)
        throw new BrickpostError('USAGE', `chunk length ${len} of ${quote(p)} is out of range`);
      sum += len;
      if (sum > size) throw new BrickpostError('USAGE', `chunks of ${quote(p)} add up to more than its size ${size}`);
      if (c.length === CHUNKS_PER_RECORD) await flush();
      c.push([hex, len]);
    }
    if (sum !== size) throw new BrickpostError('USAGE', `chunks of ${quote(p)} add up to ${sum}, not its size ${size}`);
    if (first || c.length > 0) await flush();
  }

  /**
   * Notes a path the destination lacks (request files).
   * @throws BrickpostError UNSAFE_PATH, USAGE (reason longer than 1024 characters)
   */
  async addMissing(p: string, reason: string): Promise<void> {
    checkPath(p, 'signature file');
    if (reason.length > 1024) throw new BrickpostError('USAGE', `reason for ${quote(p)} is longer than 1024 characters`);
    await this.record({ t: 'missing', p, reason });
  }

  /**
   * Writes the end record, syncs the file, moves it into place and signs it
   * with `signingKey` (which must be the header's subscriber key).
   * @throws BrickpostError USAGE (another key), NO_SPACE, PERMISSION, IO
   */
  async close(signingKey: minisign.SigningKey): Promise<SignatureFileTotals> {
    if (minisign.keyIdHex(signingKey.keyId) !== this.header.subscriber) {
      throw new BrickpostError(
        'USAGE',
        `signature file names subscriber ${this.header.subscriber} but would be signed by key ${minisign.keyIdHex(signingKey.keyId)}`,
      );
    }
    const t = { ...this.order.totals };
    await this.record({ t: 'end', files: t.files, chunks: t.chunks, bytes: t.bytes });
    this.order.finish();
    await this.blocks.flush();
    const sha256 = await this.out.close();
    this.done = true;
    try {
      await rename(this.out.path, this.path);
      await syncDir(dirname(this.path));
    } catch (e) {
      await rm(this.out.path, { force: true }).catch(() => undefined);
      throw toEnvironmentError(e, `cannot write ${this.path}`);
    }
    await signDetached(this.path, this.prehash.digest(), signingKey, sigTrustedComment(this.header), `brickpost ${this.header.kind} file, sha256 ${sha256}`);
    return { sha256, ...t };
  }

  /** Stops writing and removes the temporary file. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.blocks.idle();
    await this.out.abort();
    await rm(this.out.path, { force: true }).catch(() => undefined);
  }

  private async record(r: SigRecord): Promise<void> {
    this.order.push(r, this.line + 1);
    await this.push(JSON.stringify(r));
  }

  private async push(text: string): Promise<void> {
    if (this.done) throw new BrickpostError('USAGE', `signature file ${quote(this.path)} is already closed`);
    this.line++;
    await this.blocks.add(`${text}\n`);
  }

  private async raw(buf: Buffer): Promise<void> {
    this.prehash.update(buf);
    await this.out.write(buf);
  }
}
