import { join } from 'node:path';
import { age, frame, MANIFEST_FORMAT, MANIFEST_PATH, ManifestWriter, type ManifestRecord } from '@brickpost/manifest';
import { LineBlocks } from '../io/line-blocks.js';
import { SeqWriter } from '../io/seq-writer.js';
import { HEADER_FRAME_NIBBLE } from './pack-writer.js';

/**
 * Writes data/manifest.age while the shipment is packed: records become
 * NDJSON lines (checked by the same rules a receiver applies), are gathered
 * into blocks, each block one zstd frame, the frames age-encrypted to the
 * shipment's recipients. Memory holds one block.
 */
export class ManifestOut {
  private readonly lines = new ManifestWriter();
  private readonly blocks = new LineBlocks((f) => this.plain(f), 6);

  private constructor(
    private readonly out: SeqWriter,
    private readonly enc: age.PayloadEncryptor,
  ) {}

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
    await this.blocks.add(this.lines.line(record));
  }

  private async plain(buf: Buffer): Promise<void> {
    for (const c of this.enc.update(buf)) await this.out.write(c);
  }

  /** Finishes the file; returns its size and SHA-256. */
  async close(): Promise<{ size: number; sha256: string }> {
    await this.blocks.flush();
    for (const c of this.enc.final()) await this.out.write(c);
    const sha256 = await this.out.close();
    return { size: this.out.size, sha256 };
  }

  async abort(): Promise<void> {
    await this.out.abort();
  }
}
