import { age, frame, packPath } from '@brickpost/manifest';
import { HEADER_FRAME_NIBBLE } from '../io/header-frame.js';
import type { SeqWriter } from '../io/seq-writer.js';

export const PACK_FORMAT = 'brickpost-pack/v1';

/** What a finished pack is, for the manifest's pack index and the bag manifest. */
export interface PackInfo {
  index: number;
  /** The data share (drive of a set, 0-based) that holds it. */
  share: number;
  path: string;
  size: number;
  plain: number;
  chunks: number;
  sha256: string;
}

/**
 * The plaintext header of a pack: a zstd skippable frame holding
 * `brickpost-pack/v1\n` and a JSON line binding the pack to its shipment and
 * index (FORMAT.md §pack). `zstd -d` skips it.
 */
export function packHeaderFrame(shipment: string, index: number): Buffer {
  const text = `${PACK_FORMAT}\n${JSON.stringify({ shipment, pack: index })}\n`;
  return frame.skippableFrame(HEADER_FRAME_NIBBLE, Buffer.from(text, 'utf8'));
}

/**
 * Writes one pack: an age file (to all recipients) whose plaintext is the
 * pack header frame followed by chunk frames. Tracks the plaintext offset of
 * each frame so the manifest can point at it.
 */
export class PackWriter {
  private plainSize = 0;
  private chunkCount = 0;

  private constructor(
    readonly index: number,
    readonly share: number,
    readonly relPath: string,
    private readonly out: SeqWriter,
    private readonly enc: age.PayloadEncryptor,
  ) {}

  /**
   * Starts pack `index` of data share `share` in `out`, a new file at the pack's bag path.
   * @throws BrickpostError NO_SPACE, PERMISSION, IO
   */
  static async create(out: SeqWriter, index: number, share: number, recipients: age.Recipient[], shipment: string): Promise<PackWriter> {
    const rel = packPath(index);
    const { header, fileKey } = age.createHeader(recipients);
    const enc = new age.PayloadEncryptor(fileKey);
    await out.write(header);
    await out.write(enc.nonce);
    const w = new PackWriter(index, share, rel, out, enc);
    await w.plain(packHeaderFrame(shipment, index));
    return w;
  }

  /** Plaintext bytes so far (header frame included). */
  get size(): number {
    return this.plainSize;
  }

  /** Appends one chunk frame; returns its plaintext offset. */
  async add(frameBytes: Buffer): Promise<number> {
    const at = this.plainSize;
    await this.plain(frameBytes);
    this.chunkCount++;
    return at;
  }

  private async plain(buf: Buffer): Promise<void> {
    this.plainSize += buf.length;
    for (const c of this.enc.update(buf)) await this.out.write(c);
  }

  /** Seals the last STREAM chunk, syncs and closes. */
  async close(): Promise<PackInfo> {
    for (const c of this.enc.final()) await this.out.write(c);
    const sha256 = await this.out.close();
    return { index: this.index, share: this.share, path: this.relPath, size: this.out.size, plain: this.plainSize, chunks: this.chunkCount, sha256 };
  }

  async abort(): Promise<void> {
    await this.out.abort();
  }
}
