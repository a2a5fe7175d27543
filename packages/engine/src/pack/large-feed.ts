import type { ReadChunk } from './store.js';

/** One chunk of a large file: its length, and the job that reads and encodes it. */
export interface FeedPart {
  length: number;
  job: Promise<ReadChunk>;
}

/**
 * The chunks of a file larger than WHOLE_FILE_MAX as they are read, ahead of
 * the queue's turn to write them (EntryPacker): the read runs in the
 * background while the walk goes on past the file, at most `ahead` bytes of
 * chunks ahead of the writing, which takes them in file order (next).
 */
export class LargeFeed {
  private readonly parts: FeedPart[] = [];
  private bytes = 0;
  private done = false;
  private stopped = false;
  /** Wakes the writer waiting for a part, or the read waiting for room. */
  private wake: (() => void) | null = null;
  private room: (() => void) | null = null;
  /** Why the read failed, if it did: known once next() has given null. */
  failure: { error: unknown } | null = null;
  /** Settles when the read has ended (to the end, stopped or failed) and the file is closed. */
  readonly read: Promise<void>;

  constructor(
    chunks: AsyncIterable<FeedPart>,
    private readonly ahead: number,
  ) {
    this.read = this.pump(chunks);
  }

  private async pump(chunks: AsyncIterable<FeedPart>): Promise<void> {
    try {
      for await (const part of chunks) {
        this.parts.push(part);
        this.bytes += part.length;
        this.wake?.();
        while (this.bytes > this.ahead && !this.stopped) await new Promise<void>((r) => (this.room = r));
        if (this.stopped) return;
      }
    } catch (e) {
      this.failure = { error: e };
    } finally {
      this.done = true;
      this.wake?.();
    }
  }

  /** The next chunk in file order, or null once the read has ended (see failure). */
  async next(): Promise<FeedPart | null> {
    for (;;) {
      const part = this.parts.shift();
      if (part) {
        this.bytes -= part.length;
        this.free();
        return part;
      }
      if (this.done) return null;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = null;
    }
  }

  /** Ends the read at its next chunk (the pack failed elsewhere); resolves once the file is closed. */
  stop(): Promise<void> {
    this.stopped = true;
    this.free();
    return this.read;
  }

  private free(): void {
    const room = this.room;
    this.room = null;
    room?.();
  }
}
