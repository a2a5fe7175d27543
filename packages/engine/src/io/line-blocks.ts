import { Compressor } from 'zstd-napi';
import { native } from './native.js';

/** Lines are compressed in independent zstd frames of about this many bytes. */
export const LINE_BLOCK = 4 << 20;

/**
 * Gathers NDJSON lines into blocks of about LINE_BLOCK bytes and hands each
 * block, compressed as one zstd frame (content size in its header), to
 * `sink`, in order. How the manifest and signature files are written
 * (FORMAT.md §9.1, §15).
 *
 * With the native core a full block is compressed on its CPU pool while
 * the next one gathers: the JavaScript thread, which builds the lines, is
 * what a pack of many small files waits on (0.6 s of a second pack of
 * 300,000 files went to compressing its manifest there). Memory then holds
 * the block gathering and the one being compressed and handed over. A
 * failure to hand one over is raised by the next add or flush.
 */
export class LineBlocks {
  private block: string[] = [];
  private blockBytes = 0;
  private readonly zstd = new Compressor();
  /** The block being compressed and handed over, if any. */
  private pending: Promise<void> | null = null;

  constructor(
    private readonly sink: (frame: Buffer) => Promise<void>,
    private readonly level: number,
  ) {
    this.zstd.setParameters({ compressionLevel: level, contentSizeFlag: true });
  }

  /** Adds one line (its text ends with its newline). */
  async add(line: string): Promise<void> {
    this.block.push(line);
    this.blockBytes += line.length;
    if (this.blockBytes >= LINE_BLOCK) await this.hand();
  }

  /** Compresses and hands over the lines gathered so far, and waits until they are. */
  async flush(): Promise<void> {
    await this.hand();
    await this.settled();
  }

  /** Waits for the block being handed over, whatever becomes of it (before the sink's outputs are aborted). */
  async idle(): Promise<void> {
    await this.pending?.catch(() => undefined);
  }

  /** Starts compressing the block gathered, once the one before is handed over. */
  private async hand(): Promise<void> {
    await this.settled();
    if (this.block.length === 0) return;
    const text = Buffer.from(this.block.join(''), 'utf8');
    this.block = [];
    this.blockBytes = 0;
    const n = native();
    if (!n) return this.sink(this.zstd.compress(text));
    const p = n.compressFrame(text, this.level).then((frame) => this.sink(frame));
    // Raised by the next add or flush (settled), not as an unhandled rejection meanwhile.
    p.catch(() => undefined);
    this.pending = p;
  }

  private async settled(): Promise<void> {
    const p = this.pending;
    this.pending = null;
    await p;
  }
}
