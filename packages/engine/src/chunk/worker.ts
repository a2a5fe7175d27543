/**
 * Entry point of a chunk pipeline worker thread: hashes, compresses and
 * decodes chunks for createChunkPipeline, reads small files whole (with their
 * signature), and codes chunks as deltas against a basis signature. Not
 * imported by anything else.
 */
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { BrickpostError } from '@brickpost/manifest/errors';
import { parseSignature, type ParsedSignature } from '../delta/signature.js';
import { decodeChunk, encodeChunk } from './codec.js';
import { deltaFrame } from './delta-frame.js';
import { chunkId } from './id.js';
import { readWholeFile } from './whole-file.js';
import { asBuffer, forPost, serializeError, type Job, type Reply, type WorkerInit } from './messages.js';

const init = workerData as WorkerInit;
const key = asBuffer(init.key);
const port = parentPort!;
/** The one basis signature this worker holds (the pool sends each signature's jobs to one worker). */
let basis: { id: number; sig: ParsedSignature } | null = null;

function sha256(raw: Uint8Array): Buffer {
  return createHash('sha256').update(raw).digest();
}

async function handle(job: Job, transfer: ArrayBuffer[]): Promise<Reply> {
  if (job.op === 'encode') {
    const raw = asBuffer(job.raw);
    const id = chunkId(key, raw);
    const { frame, stored } = encodeChunk(raw, init.level);
    return {
      seq: job.seq,
      ok: true,
      op: 'encode',
      id: forPost(id, true, transfer),
      frame: forPost(frame, true, transfer),
      stored,
      length: raw.length,
      ...(job.sha ? { sha: forPost(sha256(raw), true, transfer) } : {}),
    };
  }
  if (job.op === 'file') {
    const { chunks, changed, signature } = readWholeFile(job.path, job.size, job.signature ?? 0);
    const posted = chunks.map((raw) => {
      const { frame, stored } = encodeChunk(raw, init.level);
      return {
        id: forPost(chunkId(key, raw), true, transfer),
        frame: forPost(frame, true, transfer),
        stored,
        length: raw.length,
        ...(job.sha ? { sha: forPost(sha256(raw), true, transfer) } : {}),
        ...(job.raw ? { raw: forPost(raw, true, transfer) } : {}),
      };
    });
    return {
      seq: job.seq,
      ok: true,
      op: 'file',
      chunks: posted,
      ...(changed ? { changed } : {}),
      ...(signature ? { signature: forPost(signature, true, transfer) } : {}),
    };
  }
  if (job.op === 'delta') {
    if (job.sig) basis = { id: job.sigId, sig: parseSignature(job.sig) };
    if (basis?.id !== job.sigId) throw new BrickpostError('USAGE', `delta job for signature ${job.sigId} reached a worker holding ${basis?.id ?? 'none'}`);
    const d = await deltaFrame(basis.sig, job.raw, init.level, job.limit);
    return { seq: job.seq, ok: true, op: 'delta', frame: d ? forPost(d.frame, true, transfer) : null, deltaLength: d?.deltaLength ?? 0 };
  }
  const raw = decodeChunk(asBuffer(job.frame), job.expectedLength, asBuffer(job.id), key);
  return { seq: job.seq, ok: true, op: 'decode', raw: forPost(raw, true, transfer) };
}

port.on('message', (job: Job) => {
  const transfer: ArrayBuffer[] = [];
  handle(job, transfer).then(
    (reply) => port.postMessage(reply, transfer),
    (e: unknown) => port.postMessage({ seq: job.seq, ok: false, error: serializeError(e) } satisfies Reply),
  );
});
