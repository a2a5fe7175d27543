import type { Worker } from 'node:worker_threads';
import { BrickpostError, ERROR_CODES, type ErrorCode } from '@brickpost/manifest/errors';
import { isSystemError, toEnvironmentError } from '../io/errors.js';

/** What a pipeline worker is started with. */
export interface WorkerInit {
  key: Uint8Array;
  level: number;
}

/**
 * A job sent to a worker. `sha`: also return the SHA-256 of each chunk's
 * bytes. `signature`: the block size of the bpsig1 signature to compute over
 * the whole file (0 for none). `raw`: return each chunk's bytes too. A delta
 * job carries `sig` (a bpsig1 signature) only when the worker does not hold
 * signature `sigId` already (the pool routes a signature's jobs to one
 * worker), and `limit`: the frame length the delta must beat.
 */
export type Job =
  | { seq: number; op: 'encode'; raw: Uint8Array; sha?: boolean }
  | { seq: number; op: 'decode'; frame: Uint8Array; expectedLength: number; id: Uint8Array }
  | { seq: number; op: 'file'; path: string; size: number; sha?: boolean; signature?: number; raw?: boolean }
  | { seq: number; op: 'delta'; raw: Uint8Array; sigId: number; sig?: Uint8Array; limit: number };

/** One encoded chunk as it crosses a thread boundary. */
export interface PostedChunk {
  id: Uint8Array;
  frame: Uint8Array;
  stored: 'zstd' | 'raw';
  length: number;
  sha?: Uint8Array;
  raw?: Uint8Array;
}

/** A worker's answer to one job. */
export type Reply =
  | { seq: number; ok: true; op: 'encode'; id: Uint8Array; frame: Uint8Array; stored: 'zstd' | 'raw'; length: number; sha?: Uint8Array }
  | { seq: number; ok: true; op: 'decode'; raw: Uint8Array }
  | { seq: number; ok: true; op: 'file'; chunks: PostedChunk[]; changed?: string; signature?: Uint8Array }
  | { seq: number; ok: true; op: 'delta'; frame: Uint8Array | null; deltaLength: number }
  | { seq: number; ok: false; error: SerializedError };

/** A BrickpostError (or any error) as it crosses a thread boundary. */
export interface SerializedError {
  code?: string;
  message: string;
  hint?: string;
  path?: string;
  /** A system error's errno (EIO…), call and number: rebuilt on the other side as the same environment error. */
  errno?: string;
  syscall?: string;
  errnoNumber?: number;
  /** For a request about several items (a pack reader's refs): the index of the one that failed. */
  ref?: number;
}

/** Flattens an error for postMessage; a system error keeps its errno, call and path. */
export function serializeError(e: unknown): SerializedError {
  if (e instanceof BrickpostError) {
    const s: SerializedError = { code: e.code, message: e.message };
    if (e.hint !== undefined) s.hint = e.hint;
    if (e.path !== undefined) s.path = e.path;
    const ref = (e as { ref?: unknown }).ref;
    if (typeof ref === 'number') s.ref = ref;
    return s;
  }
  const s: SerializedError = { message: e instanceof Error ? e.message : String(e) };
  if (isSystemError(e)) {
    s.errno = e.code;
    if (e.syscall !== undefined) s.syscall = e.syscall;
    if (typeof e.errno === 'number') s.errnoNumber = e.errno;
    if (typeof e.path === 'string') s.path = e.path;
  }
  return s;
}

/** Rebuilds a BrickpostError from serializeError's output: a system error as toEnvironmentError makes it; other unknown errors become IO. */
export function deserializeError(s: SerializedError): BrickpostError {
  if (s.errno !== undefined) {
    const sys = Object.assign(new Error(s.message), { code: s.errno, syscall: s.syscall, errno: s.errnoNumber, path: s.path });
    return toEnvironmentError(sys, 'a worker thread failed');
  }
  const code: ErrorCode = s.code !== undefined && s.code in ERROR_CODES ? (s.code as ErrorCode) : 'IO';
  const opts: { hint?: string; path?: string } = {};
  if (s.hint !== undefined) opts.hint = s.hint;
  if (s.path !== undefined) opts.path = s.path;
  return new BrickpostError(code, code === 'IO' && s.code === undefined ? `chunk worker failed: ${s.message}` : s.message, opts);
}

/** True when `u8` is the whole of a plain ArrayBuffer, so moving that buffer moves nothing else. */
export function ownsBuffer(u8: Uint8Array): boolean {
  return u8.byteOffset === 0 && u8.byteLength === u8.buffer.byteLength && u8.buffer instanceof ArrayBuffer && u8.byteLength > 0;
}

/**
 * Prepares `view` for postMessage without cloning more than its own bytes:
 * structured clone of a view copies its whole ArrayBuffer (a chunk sliced from
 * a 60 MB file would send 60 MB). A view that owns its buffer is moved when
 * `move` is true; anything else is copied into a buffer of its own, which is
 * then moved. Pushes what to transfer onto `transfer`.
 */
export function forPost(view: Uint8Array, move: boolean, transfer: ArrayBuffer[]): Uint8Array {
  const out = move && ownsBuffer(view) ? view : new Uint8Array(view);
  if (out.byteLength > 0) transfer.push(out.buffer as ArrayBuffer);
  return out;
}

/** A Buffer view over a Uint8Array that came through postMessage. */
export function asBuffer(u8: Uint8Array): Buffer {
  return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
}

/**
 * Heap limits of brickpost's worker threads: their data lives in Buffers
 * outside the JS heap, so a small young generation is enough and keeps the
 * resident memory of a job bounded.
 */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 } as const;

/**
 * Ends a worker thread. An idle worker is unref()ed so that it does not keep
 * the process alive; it is held again until it has ended, or Node, finding
 * nothing left to run, could exit with the caller's await unsettled.
 */
export function endWorker(w: Worker): Promise<number> {
  w.ref();
  return w.terminate();
}
