import { Compressor } from 'zstd-napi';

/** Lines are compressed in independent zstd frames of about this many bytes. */
export const LINE_BLOCK = 4 << 20;

/**
 * Gathers NDJSON lines into blocks of about LINE_BLOCK bytes and hands each
 * block, compressed as one zstd frame (content size in its header), to
 * `sink`. Memory holds one block. How the manifest and signature files are
 * written (FORMAT.md §9.1, §15).
 */
export class LineBlocks {
  private block: string[] = [];
  private blockBytes = 0;
  private readonly zstd = new Compressor();

  constructor(
    private readonly sink: (frame: Buffer) => Promise<void>,
    level: number,
  ) {
    this.zstd.setParameters({ compressionLevel: level, contentSizeFlag: true });
  }

  /** Adds one line (its text ends with its newline). */
  async add(line: string): Promise<void> {
    this.block.push(line);
    this.blockBytes += line.length;
    if (this.blockBytes >= LINE_BLOCK) await this.flush();
  }

  /** Compresses and hands over the lines gathered so far. */
  async flush(): Promise<void> {
    if (this.block.length === 0) return;
    const text = Buffer.from(this.block.join(''), 'utf8');
    this.block = [];
    this.blockBytes = 0;
    await this.sink(this.zstd.compress(text));
  }
}
