/**
 * Entry point of the cutter thread: reads one large file at a time and cuts
 * it into chunks (findCut), answering each `next` request with the next
 * batch of whole chunks. When asked (`signature`: a block size), it also
 * computes the file's bpsig1 signature as the chunks go by and sends it with
 * the last batch. Not imported by anything else.
 */
import { closeSync, openSync } from 'node:fs';
import { fsPath } from '../io/fs-path.js';
import { parentPort } from 'node:worker_threads';
import { BrickpostError } from '@brickpost/manifest/errors';
import { SignatureBuilder } from '../delta/signature.js';
import { forPost, serializeError } from './messages.js';
import { toFileError } from './file.js';
import { CutWindow } from './window.js';

export type CutRequest = { op: 'open'; path: string; size: number; signature?: number } | { op: 'next' } | { op: 'close' };
export type CutReply =
  { ok: true; chunks: Uint8Array[]; done: boolean; changed?: string; signature?: Uint8Array } | { ok: false; error: ReturnType<typeof serializeError> };

const BLOCK = 4 << 20;
let fd = -1;
let path = '';
let size = 0;
const win = new CutWindow(BLOCK);
let sig: SignatureBuilder | null = null;

function next(): CutReply {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  while (bytes < BLOCK) {
    const view = win.next();
    if (view === null) {
      const signature = sig?.final();
      sig = null;
      const changed = win.changed;
      return { ok: true, chunks, done: true, ...(changed ? { changed } : {}), ...(signature ? { signature } : {}) };
    }
    const c = Buffer.allocUnsafeSlow(view.length);
    view.copy(c);
    bytes += c.length;
    chunks.push(c);
    sig?.update(c);
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
      sig = req.signature ? new SignatureBuilder(req.signature) : null;
      try {
        fd = openSync(fsPath(path), 'r');
      } catch (e) {
        throw toFileError(e, path);
      }
      win.reset(fd, size);
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
