/**
 * Entry point of the cutter thread: reads one large file at a time and cuts
 * it into chunks (findCut), answering each `next` request with the next
 * batch of whole chunks. When asked (`signature`: a block size), it also
 * computes the file's bpsig1 signature as the chunks go by and sends it with
 * the last batch. Not imported by anything else.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { BrickpostError } from '@brickpost/manifest/errors';
import { SignatureBuilder } from '../delta/signature.js';
import { findCut } from './cut.js';
import { CHUNK_PARAMS_V1 } from './params.js';
import { forPost, serializeError } from './messages.js';
import { toFileError } from './file.js';

export type CutRequest = { op: 'open'; path: string; size: number; signature?: number } | { op: 'next' } | { op: 'close' };
export type CutReply =
  | { ok: true; chunks: Uint8Array[]; done: boolean; changed?: string; signature?: Uint8Array }
  | { ok: false; error: ReturnType<typeof serializeError> };

const BLOCK = 4 << 20;
let fd = -1;
let path = '';
let size = 0;
let readPos = 0;
let buf = Buffer.allocUnsafeSlow(BLOCK + CHUNK_PARAMS_V1.max);
let pos = 0;
let fill = 0;
let changed: string | undefined;
let sig: SignatureBuilder | null = null;

function refill(): void {
  buf.copyWithin(0, pos, fill);
  fill -= pos;
  pos = 0;
  const want = Math.min(buf.length - fill, size - readPos);
  let got = 0;
  while (got < want) {
    const n = readSync(fd, buf, fill + got, want - got, readPos + got);
    if (n === 0) break;
    got += n;
  }
  if (got < want) {
    changed = `shrank while being read; padded with ${size - readPos - got} zero bytes`;
    buf.fill(0, fill + got, fill + want);
  }
  fill += want;
  readPos += want;
  if (readPos === size && !changed) {
    const probe = Buffer.allocUnsafe(1);
    if (readSync(fd, probe, 0, 1, size) > 0) changed = `grew while being read; shipped its first ${size} bytes`;
  }
}

function next(): CutReply {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  while (bytes < BLOCK) {
    const eof = readPos === size;
    const cut = findCut(buf, pos, fill, eof);
    if (cut > 0) {
      const c = Buffer.allocUnsafeSlow(cut);
      buf.copy(c, 0, pos, pos + cut);
      pos += cut;
      bytes += cut;
      chunks.push(c);
      sig?.update(c);
      continue;
    }
    if (cut === 0 || (eof && pos === fill)) {
      const signature = sig?.final();
      sig = null;
      return { ok: true, chunks, done: true, ...(changed ? { changed } : {}), ...(signature ? { signature } : {}) };
    }
    refill();
  }
  return { ok: true, chunks, done: false };
}

parentPort!.on('message', (req: CutRequest) => {
  let reply: CutReply;
  try {
    if (req.op === 'open') {
      if (fd >= 0) closeSync(fd);
      fd = -1;
      path = req.path;
      size = req.size;
      readPos = pos = fill = 0;
      changed = undefined;
      sig = req.signature ? new SignatureBuilder(req.signature) : null;
      try {
        fd = openSync(path, 'r');
      } catch (e) {
        throw toFileError(e, path);
      }
      const signature = size === 0 ? sig?.final() : undefined;
      reply = { ok: true, chunks: [], done: size === 0, ...(signature ? { signature } : {}) };
    } else if (req.op === 'next') {
      reply = next();
    } else {
      if (fd >= 0) closeSync(fd);
      fd = -1;
      reply = { ok: true, chunks: [], done: true };
    }
  } catch (e) {
    reply = { ok: false, error: serializeError(e instanceof BrickpostError ? e : toFileError(e, path)) };
  }
  const transfer = reply.ok ? reply.chunks.map((c) => c.buffer as ArrayBuffer) : [];
  if (reply.ok && reply.signature) reply = { ...reply, signature: forPost(reply.signature, true, transfer) };
  parentPort!.postMessage(reply, transfer);
});
