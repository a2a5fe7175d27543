/**
 * Entry point of a folder-scan thread: reads one file at a time, cuts it
 * with the v1 chunker and hashes every chunk (SHA-256, or the keyed chunk id
 * when started with a key), for scanFolder. Not imported by anything else.
 */
import { createHash, createHmac } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { toFileError } from '../chunk/file.js';
import { serializeError, type SerializedError } from '../chunk/messages.js';
import { CutWindow } from '../chunk/window.js';

export interface ScanInit {
  /** Chunk-id key, or null for plain SHA-256. */
  key: Uint8Array | null;
}

export interface ScanJob {
  seq: number;
  path: string;
  size: number;
}

export type ScanReply =
  | { seq: number; kind: 'progress'; bytes: number }
  | { seq: number; kind: 'done'; ids: Uint8Array; lengths: number[]; changed?: string }
  | { seq: number; kind: 'error'; error: SerializedError; vanished: boolean };

const BLOCK = 8 << 20;
/** A progress message after about this many bytes of one file. */
const PROGRESS_EVERY = 64 << 20;
const key = (workerData as ScanInit).key;
const port = parentPort!;
const win = new CutWindow(BLOCK);

function digest(data: Uint8Array): Buffer {
  return (key ? createHmac('sha256', key) : createHash('sha256')).update(data).digest();
}

/**
 * Cuts exactly `size` bytes as pack does: a file that grew is cut at its
 * scanned size, one that shrank is padded with zeros, and `changed` says so.
 */
function scan(job: ScanJob): ScanReply {
  const fd = openSync(job.path, 'r');
  try {
    win.reset(fd, job.size);
    const ids: Buffer[] = [];
    const lengths: number[] = [];
    let reported = 0;
    for (let chunk = win.next(); chunk !== null; chunk = win.next()) {
      ids.push(digest(chunk));
      lengths.push(chunk.length);
      if (win.readPos - reported >= PROGRESS_EVERY) {
        port.postMessage({ seq: job.seq, kind: 'progress', bytes: win.readPos - reported } satisfies ScanReply);
        reported = win.readPos;
      }
    }
    const all = new Uint8Array(ids.length * 32);
    ids.forEach((id, i) => all.set(id, i * 32));
    if (job.size - reported > 0) port.postMessage({ seq: job.seq, kind: 'progress', bytes: job.size - reported } satisfies ScanReply);
    const changed = win.changed;
    return { seq: job.seq, kind: 'done', ids: all, lengths, ...(changed ? { changed } : {}) };
  } finally {
    closeSync(fd);
  }
}

port.on('message', (job: ScanJob) => {
  let reply: ScanReply;
  try {
    reply = scan(job);
  } catch (e) {
    const vanished = (e as NodeJS.ErrnoException).code === 'ENOENT';
    reply = { seq: job.seq, kind: 'error', error: serializeError(toFileError(e, job.path)), vanished };
  }
  port.postMessage(reply, reply.kind === 'done' && reply.ids.byteLength > 0 ? [reply.ids.buffer as ArrayBuffer] : []);
});
