/**
 * Entry point of a folder-scan thread: reads one file at a time, cuts it
 * with the v1 chunker and hashes every chunk (SHA-256, or the keyed chunk id
 * when started with a key), for scanFolder. Not imported by anything else.
 */
import { createHash, createHmac } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { findCut } from '../chunk/cut.js';
import { toFileError } from '../chunk/file.js';
import { serializeError, type SerializedError } from '../chunk/messages.js';
import { CHUNK_PARAMS_V1 } from '../chunk/params.js';

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
const buf = Buffer.allocUnsafeSlow(BLOCK + CHUNK_PARAMS_V1.max);

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
    const ids: Buffer[] = [];
    const lengths: number[] = [];
    let readPos = 0;
    let pos = 0;
    let fill = 0;
    let changed: string | undefined;
    let reported = 0;
    for (;;) {
      const eof = readPos === job.size;
      const cut = findCut(buf, pos, fill, eof);
      if (cut > 0) {
        ids.push(digest(buf.subarray(pos, pos + cut)));
        lengths.push(cut);
        pos += cut;
        continue;
      }
      if (cut === 0 || (eof && pos === fill)) break;
      buf.copyWithin(0, pos, fill);
      fill -= pos;
      pos = 0;
      const want = Math.min(buf.length - fill, job.size - readPos);
      let got = 0;
      while (got < want) {
        const n = readSync(fd, buf, fill + got, want - got, readPos + got);
        if (n === 0) break;
        got += n;
      }
      if (got < want) {
        changed = `shrank while being read; its last ${job.size - readPos - got} bytes were taken as zeros`;
        buf.fill(0, fill + got, fill + want);
      }
      fill += want;
      readPos += want;
      if (readPos - reported >= PROGRESS_EVERY) {
        port.postMessage({ seq: job.seq, kind: 'progress', bytes: readPos - reported } satisfies ScanReply);
        reported = readPos;
      }
      if (readPos === job.size && !changed && readSync(fd, Buffer.allocUnsafe(1), 0, 1, job.size) > 0) {
        changed = `grew while being read; its first ${job.size} bytes were taken`;
      }
    }
    const all = new Uint8Array(ids.length * 32);
    ids.forEach((id, i) => all.set(id, i * 32));
    if (job.size - reported > 0) port.postMessage({ seq: job.seq, kind: 'progress', bytes: job.size - reported } satisfies ScanReply);
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
