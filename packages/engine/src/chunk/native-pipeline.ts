import type { BasisSignature, NativeBinding, NativeChunk } from '@brickpost/native';
import { BrickpostError } from '@brickpost/manifest/errors';
import { fromNative, native } from '../io/native.js';
import { fsPath } from '../io/fs-path.js';
import { FileBatcher } from './file-batch.js';
import { toFileError } from './file.js';
import { createChunkPipeline, type ChunkPipeline, type ChunkPipelineOptions, type DeltaBasis, type EncodedChunk, type FileChunk } from './pool.js';
import { zstd } from '../io/zstd.js';

/**
 * The chunk pipeline pack uses: the native core's where it is built (one
 * pass over each byte on a pool of one thread per core: read, cut, id,
 * compress, digest, signature, delta), else createChunkPipeline's worker
 * threads. Both give the same ids, frames, signatures and delta frames.
 * Decoding stays on worker threads, started only when first asked for.
 * @throws BrickpostError USAGE for a bad worker count (JavaScript path)
 */
export function chunkPipeline(opts: ChunkPipelineOptions): ChunkPipeline {
  const n = native();
  return n ? nativePipeline(n, opts) : createChunkPipeline(opts);
}

function toChunk(c: NativeChunk): FileChunk {
  const out: FileChunk = { id: c.id, frame: c.frame, stored: c.zstd ? 'zstd' : 'raw', length: c.length };
  if (c.sha) out.sha = c.sha;
  if (c.raw) out.raw = c.raw;
  if (c.known) out.known = true;
  return out;
}

/** Native errors reading `path`, worded as the JavaScript path words them. */
function fileError(e: unknown, path: string): BrickpostError {
  return fromNative(e, (errno) => toFileError(errno, path));
}

/** Parsed basis signatures kept for deltas: files read whole are in flight a few at a time, each with its own basis. */
const BASES_KEPT = 8;

/** The native pipeline; `opts.workers` and `opts.transfer` apply to the worker threads of decoding. */
export function nativePipeline(n: NativeBinding, opts: ChunkPipelineOptions): ChunkPipeline {
  const chunker = new n.Chunker(opts.key, opts.level);
  // Files read whole for their chunks alone go to the core many at a time.
  const batcher = new FileBatcher((paths, sizes, sha) => chunker.encodeFiles(paths, sizes, sha));
  // Basis signatures by id, least recently used first; one dropped is released at once (its deltas in flight finish).
  const bases = new Map<number, BasisSignature>();
  const basisOf = (b: DeltaBasis): BasisSignature => {
    let sig = bases.get(b.id);
    if (sig) bases.delete(b.id);
    else sig = new n.BasisSignature(b.bytes());
    bases.set(b.id, sig);
    for (const [id, old] of bases) {
      if (bases.size <= BASES_KEPT) break;
      bases.delete(id);
      old.release();
    }
    return sig;
  };
  let workers: ChunkPipeline | null = null;
  const pool = (): ChunkPipeline => (workers ??= createChunkPipeline(opts));
  let inFlight = 0;
  let closed = false;
  const levelOk = Number.isInteger(opts.level) && opts.level >= zstd.minCLevel() && opts.level <= zstd.maxCLevel();

  async function run<T>(job: () => Promise<T>): Promise<T> {
    if (closed) throw new BrickpostError('USAGE', 'chunk pipeline is closed');
    if (!levelOk) throw new BrickpostError('USAGE', `zstd level ${opts.level} is outside ${zstd.minCLevel()}..${zstd.maxCLevel()}`);
    inFlight++;
    try {
      return await job();
    } finally {
      inFlight--;
    }
  }

  const pipeline: ChunkPipeline = {
    encode(raw, o = {}) {
      return run(async () => {
        const c = toChunk(await chunker.encode(raw, o.sha === true).catch((e: unknown) => Promise.reject(fromNative(e))));
        // encode() gives a Buffer, as the worker pool does.
        const out: EncodedChunk = { ...c, frame: Buffer.isBuffer(c.frame) ? c.frame : c.frame.toBuffer() };
        return out;
      });
    },
    async *encodeAll(chunks, window = 2 * n.threads() + 2) {
      const queued: Promise<EncodedChunk>[] = [];
      try {
        for await (const raw of chunks) {
          const p = pipeline.encode(raw);
          p.catch(() => undefined);
          queued.push(p);
          if (queued.length >= window) yield await queued.shift()!;
        }
        while (queued.length > 0) yield await queued.shift()!;
      } finally {
        await Promise.allSettled(queued);
      }
    },
    encodeFile(path, size, o = {}) {
      return run(async () => {
        const plain = !o.signature && o.raw !== true && !o.known;
        const r = await (
          plain
            ? batcher.add(pathBytes(path), size, o.sha === true)
            : chunker.encodeFile(pathBytes(path), size, o.sha === true, o.signature ?? 0, o.raw === true, o.known ?? null)
        ).catch((e: unknown) => Promise.reject(fileError(e, path)));
        return { chunks: r.chunks.map(toChunk), ...(r.changed ? { changed: r.changed } : {}), ...(r.signature ? { signature: r.signature } : {}) };
      });
    },
    async *encodeLarge(path, size, o, changed, signature) {
      if (closed) throw new BrickpostError('USAGE', 'chunk pipeline is closed');
      if (!levelOk) throw new BrickpostError('USAGE', `zstd level ${opts.level} is outside ${zstd.minCLevel()}..${zstd.maxCLevel()}`);
      const f = chunker.open(pathBytes(path), size, o.sha === true, o.signature ?? 0, o.raw === true, o.known ?? null);
      const next = () => {
        const p = f.next().catch((e: unknown) => Promise.reject(fileError(e, path)));
        p.catch(() => undefined);
        return p;
      };
      inFlight++;
      try {
        // Two batches ahead: the file's thread reads and cuts one while the pool encodes the other and this one stores the last.
        const ahead = [next(), next()];
        for (;;) {
          const b = await ahead.shift()!;
          if (!b.done) ahead.push(next());
          for (const c of b.chunks) yield { length: c.length, job: Promise.resolve(toChunk(c)) };
          if (b.changed) changed(b.changed);
          if (b.signature) signature(b.signature);
          if (b.done) break;
        }
      } finally {
        inFlight--;
        f.close();
      }
    },
    delta(raw, basis, limit) {
      return run(async () => {
        let sig: BasisSignature;
        try {
          sig = basisOf(basis);
        } catch (e) {
          throw fromNative(e);
        }
        const d = await sig.delta(raw, opts.level, limit).catch((e: unknown) => Promise.reject(fromNative(e)));
        return d ? { frame: d.frame, deltaLength: d.deltaLength } : null;
      });
    },
    decode(frame, expectedLength, id) {
      return pool().decode(frame, expectedLength, id);
    },
    get pending() {
      return inFlight + (workers?.pending ?? 0);
    },
    async close() {
      closed = true;
      for (const sig of bases.values()) sig.release();
      bases.clear();
      await workers?.close();
    },
  };
  return pipeline;
}

/** A path's bytes as the system sees them (a name that is not UTF-8 included: fsPath). */
function pathBytes(path: string): Buffer {
  const p = fsPath(path);
  return typeof p === 'string' ? Buffer.from(p) : p;
}
