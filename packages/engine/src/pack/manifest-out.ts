import { age, MANIFEST_FORMAT, ManifestWriter, type ManifestRecord } from '@brickpost/manifest';
import { LineBlocks } from '../io/line-blocks.js';
import type { SeqWriter } from '../io/seq-writer.js';
import { headerFrame } from '../io/header-frame.js';

/**
 * Writes data/manifest.age while the shipment is packed: records become
 * NDJSON lines (checked by the same rules a receiver applies), are gathered
 * into blocks, each block one zstd frame, the frames age-encrypted to the
 * shipment's recipients. Memory holds two blocks (LineBlocks). The same bytes go to
 * every output: each drive of a set carries the manifest.
 */
export class ManifestOut {
  private readonly lines = new ManifestWriter();
  private readonly blocks = new LineBlocks((f) => this.plain(f), 6);

  private constructor(
    private readonly outs: SeqWriter[],
    private readonly enc: age.PayloadEncryptor,
  ) {}

  /** @throws BrickpostError NO_SPACE, PERMISSION, IO */
  static async create(outs: SeqWriter[], recipients: age.Recipient[]): Promise<ManifestOut> {
    const { header, fileKey } = age.createHeader(recipients);
    const enc = new age.PayloadEncryptor(fileKey);
    const m = new ManifestOut(outs, enc);
    await m.write(header);
    await m.write(enc.nonce);
    await m.plain(headerFrame(MANIFEST_FORMAT));
    return m;
  }

  get totals(): ManifestWriter['totals'] {
    return this.lines.totals;
  }

  /** Siblings whose names differ only in case or Unicode form, among the records so far. */
  get collisions(): ManifestWriter['collisions'] {
    return this.lines.collisions;
  }

  /** Adds one record. @throws BrickpostError if it breaks a manifest rule. */
  async add(record: ManifestRecord): Promise<void> {
    await this.blocks.add(this.lines.line(record));
  }

  private async plain(buf: Buffer): Promise<void> {
    for (const c of this.enc.update(buf)) await this.write(c);
  }

  private async write(buf: Buffer): Promise<void> {
    for (const o of this.outs) await o.write(buf);
  }

  /** Finishes the file; returns its size and SHA-256. */
  async close(): Promise<{ size: number; sha256: string }> {
    await this.blocks.flush();
    for (const c of this.enc.final()) await this.write(c);
    let sha256 = '';
    for (const o of this.outs) sha256 = await o.close();
    return { size: this.outs[0]!.size, sha256 };
  }

  async abort(): Promise<void> {
    await this.blocks.idle();
    for (const o of this.outs) await o.abort();
  }
}
