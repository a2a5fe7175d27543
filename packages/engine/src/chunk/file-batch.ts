import type { NativeFileResult } from '@brickpost/native';

/** Small files gathered into one call of the native core, at most. */
export const FILE_BATCH = 16;

/** The core's encodeFiles: names (each followed by a NUL byte), sizes, whether to digest; per file its chunks or an error message. */
export type EncodeFiles = (paths: Buffer, sizes: number[], sha: boolean) => Promise<Array<NativeFileResult | string>>;

interface Waiting {
  resolve: (r: NativeFileResult) => void;
  reject: (e: unknown) => void;
}

const NUL = Buffer.alloc(1);

/**
 * Gathers reads of small files for the native core, which answers many
 * files in one call: each call, its promise and the wake-up of this thread
 * when it settles cost about as much here as all the rest of a small file's
 * handling by the core, on a tree of small files. A batch goes when it
 * holds `size` files, or at the next turn of the event loop (when the
 * thread that gathers them waits, for a read or for the drive), so a file
 * is never held back for files that do not come. Each file still gets its
 * own promise, settled in the order the files were added.
 */
export class FileBatcher {
  private paths: Buffer[] = [];
  private sizes: number[] = [];
  private waiting: Waiting[] = [];
  private sha = false;
  private scheduled = false;

  constructor(
    private readonly encode: EncodeFiles,
    private readonly size = FILE_BATCH,
  ) {}

  /** The chunks of the file at `path` (its name's bytes) of `size` bytes; rejects with Error(message) where the core answered with an error. */
  add(path: Buffer, size: number, sha: boolean): Promise<NativeFileResult> {
    if (this.waiting.length > 0 && sha !== this.sha) this.flush();
    this.sha = sha;
    const done = new Promise<NativeFileResult>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.paths.push(path, NUL);
    this.sizes.push(size);
    if (this.waiting.length >= this.size) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    return done;
  }

  /** Sends the files gathered so far. */
  flush(): void {
    const waiting = this.waiting;
    if (waiting.length === 0) return;
    const paths = Buffer.concat(this.paths);
    const sizes = this.sizes;
    this.paths = [];
    this.sizes = [];
    this.waiting = [];
    let sent: Promise<Array<NativeFileResult | string>>;
    try {
      sent = this.encode(paths, sizes, this.sha);
    } catch (e) {
      for (const w of waiting) w.reject(e);
      return;
    }
    sent.then(
      (out) => {
        for (let i = 0; i < waiting.length; i++) {
          const r = out[i];
          if (r === undefined) waiting[i]!.reject(new Error(`the native core answered ${out.length} of ${waiting.length} files`));
          else if (typeof r === 'string') waiting[i]!.reject(new Error(r));
          else waiting[i]!.resolve(r);
        }
      },
      (e: unknown) => {
        for (const w of waiting) w.reject(e);
      },
    );
  }
}
