/**
 * Entry point of a chunk pipeline worker thread: hashes, compresses and
 * decodes chunks for createChunkPipeline. Not imported by anything else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { decodeChunk, encodeChunk } from './codec.js';
import { chunkId } from './id.js';
import { readWholeFile } from './whole-file.js';
import { asBuffer, forPost, serializeError, type Job, type Reply, type WorkerInit } from './messages.js';

const init = workerData as WorkerInit;
const key = asBuffer(init.key);
const port = parentPort!;

port.on('message', (job: Job) => {
  let reply: Reply;
  const transfer: ArrayBuffer[] = [];
  try {
    if (job.op === 'encode') {
      const raw = asBuffer(job.raw);
      const id = chunkId(key, raw);
      const { frame, stored } = encodeChunk(raw, init.level);
      reply = {
        seq: job.seq,
        ok: true,
        op: 'encode',
        id: forPost(id, true, transfer),
        frame: forPost(frame, true, transfer),
        stored,
        length: raw.length,
      };
    } else if (job.op === 'file') {
      const { chunks, changed } = readWholeFile(job.path, job.size);
      const posted = chunks.map((raw) => {
        const { frame, stored } = encodeChunk(raw, init.level);
        return { id: forPost(chunkId(key, raw), true, transfer), frame: forPost(frame, true, transfer), stored, length: raw.length };
      });
      reply = { seq: job.seq, ok: true, op: 'file', chunks: posted, ...(changed ? { changed } : {}) };
    } else {
      const raw = decodeChunk(asBuffer(job.frame), job.expectedLength, asBuffer(job.id), key);
      reply = { seq: job.seq, ok: true, op: 'decode', raw: forPost(raw, true, transfer) };
    }
  } catch (e) {
    reply = { seq: job.seq, ok: false, error: serializeError(e) };
  }
  port.postMessage(reply, transfer);
});
