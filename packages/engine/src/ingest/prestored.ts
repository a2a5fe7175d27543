/** A chunk file written to the store and not yet recorded. */
export interface FreshChunk {
  hash: Buffer;
  len: number;
  stored: number;
}

/** What a DEST file was (lstat) when the undo store started reading it ahead. */
export interface FileSeen {
  ino: bigint;
  dev: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** A file being read ahead for the undo store: each chunk's id under the dataset's chunk key, by its offset in the file (with its length), as far as it was read. */
export interface PrestoreReading extends FileSeen {
  ids: Map<number, { len: number; id: Buffer }>;
  /** Bytes from the file's start whose chunks are in `ids`. */
  at: number;
}

/** A file whose chunks were stored before the commit retired it: what it was when read, and its chunks' hashes. */
export interface PrestoredFile extends FileSeen {
  hashes: Buffer[];
  /** Each chunk's id under the dataset's chunk key, by its offset in the file (with its length). */
  ids: Map<number, { len: number; id: Buffer }>;
}

/**
 * The chunks of DEST files a shipment retires, stored while the shipment
 * is staged (prestore.ts), before the commit moves the files into the
 * undo area: compactUndo records those files from here instead of
 * reading, hashing and compressing them again. The staging follows the
 * reading as it goes (readUpTo): a chunk of a file is usable as soon as
 * the reading passed it, not once the whole file is stored.
 */
export class Prestored {
  /** By the op that retires the file. */
  readonly files = new Map<number, PrestoredFile>();
  /** Chunk files written and not recorded, by hex hash: the sweep before compactUndo spares them. */
  readonly chunks = new Map<string, FreshChunk>();
  /** The files to store, by DEST path: settled once a file is stored (or will not be). */
  private readonly waiting = new Map<string, { n: number; settled: boolean }>();
  /** The files being read (or read), by op. */
  private readonly reading = new Map<number, PrestoreReading>();
  private signal: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(readonly shipment: string) {}

  /** Registers the file at DEST path `path`, which op `n` retires, as one to store. */
  expect(path: string, n: number): void {
    this.waiting.set(path, { n, settled: false });
  }

  /** The file of op `n` is being read, as `r` (whose `at` and `ids` grow as it is; progressed() says so). */
  begin(n: number, r: PrestoreReading): void {
    this.reading.set(n, r);
    this.notify();
  }

  /** A file being read got further. */
  progressed(): void {
    this.notify();
  }

  /** The file at `path` is stored, or will not be. */
  settled(path: string): void {
    const w = this.waiting.get(path);
    if (w) w.settled = true;
    this.notify();
  }

  /** Every file is settled (the work ended, done or given up). */
  settleAll(): void {
    for (const w of this.waiting.values()) w.settled = true;
    this.notify();
  }

  /**
   * What the reading ahead saw of DEST's file at `path` (escaped, relative
   * to DEST's root as the caller gives it) once it has read the file's
   * first `end` bytes, waiting for it to get there; null when the file is
   * not to be read ahead, or the reading ended before `end`. The ids are
   * of the bytes read after the file was as `FileSeen` says: the caller
   * uses them only while the file still is.
   */
  async readUpTo(path: string, end: number): Promise<PrestoreReading | null> {
    const w = this.waiting.get(path);
    if (w === undefined) return null;
    for (;;) {
      const r = this.reading.get(w.n);
      if (r !== undefined && r.at >= end) return r;
      if (w.settled) return null;
      await (this.signal ??= new Promise<void>((resolve) => (this.wake = resolve)));
    }
  }

  /** Whether any file is to be stored. */
  get any(): boolean {
    return this.waiting.size > 0;
  }

  private notify(): void {
    const wake = this.wake;
    this.signal = null;
    this.wake = null;
    wake?.();
  }
}
