import { join } from 'node:path';
import { Compressor } from 'zstd-napi';
import { age, frame, MANIFEST_FORMAT, MANIFEST_PATH, ManifestWriter, type ManifestRecord } from '@brickpost/manifest';
import { SeqWriter } from '../io/seq-writer.js';
import { HEADER_FRAME_NIBBLE } from './pack-writer.js';

/** Lines are compressed in independent zstd frames of about this many bytes. */
const BLOCK = 4 << 20;

/**
 * Writes data/manifest.age while the shipment is packed: records become
 * NDJSON lines (checked by the same rules a receiver applies), are gathered
 * into blocks, each block one zstd frame, the frames age-encrypted to the
 * shipment's recipients. Memory holds one block.
 */
export class ManifestOut {
  private readonly lines = new ManifestWriter();
  private block: string[] = [];
  private blockBytes = 0;
  private readonly zstd = new Compressor();

  private constructor(
    private readonly out: SeqWriter,
    private readonly enc: age.PayloadEncryptor,
  ) {
    this.zstd.setParameters({ compressionLevel: 6, contentSizeFlag: true });
  }

  /** @throws BrickpostError NO_SPACE, PERMISSION, IO */
  static async create(bagDir: string, recipients: age.Recipient[]): Promise<ManifestOut> {
    const out = await SeqWriter.create(join(bagDir, MANIFEST_PATH));
    const { header, fileKey } = age.createHeader(recipients);
    const enc = new age.PayloadEncryptor(fileKey);
    await out.write(header);
    await out.write(enc.nonce);
    const m = new ManifestOut(out, enc);
    await m.plain(frame.skippableFrame(HEADER_FRAME_NIBBLE, Buffer.from(`${MANIFEST_FORMAT}\n`, 'utf8')));
    return m;
  }

  get totals(): ManifestWriter['totals'] {
    return this.lines.totals;
  }

  /** Adds one record. @throws BrickpostError if it breaks a manifest rule. */
  async add(record: ManifestRecord): Promise<void> {
    const line = this.lines.line(record);
    this.block.push(line);
    this.blockBytes += line.length;
    if (this.blockBytes >= BLOCK) await this.flushBlock();
  }

  private async flushBlock(): Promise<void> {
    if (this.block.length === 0) return;
    const text = Buffer.from(this.block.join(''), 'utf8');
    this.block = [];
    this.blockBytes = 0;
    await this.plain(this.zstd.compress(text));
  }

  private async plain(buf: Buffer): Promise<void> {
    for (const c of this.enc.update(buf)) await this.out.write(c);
  }

  /** Finishes the file; returns its size and SHA-256. */
  async close(): Promise<{ size: number; sha256: string }> {
    await this.flushBlock();
    for (const c of this.enc.final()) await this.out.write(c);
    const sha256 = await this.out.close();
    return { size: this.out.size, sha256 };
  }

  async abort(): Promise<void> {
    await this.out.abort();
  }
}
