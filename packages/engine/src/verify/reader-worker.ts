/**
 * Entry point of a pack reader thread: reads packs front to back (hashing
 * them), decrypts, and decodes and verifies the chunks the main thread asks
 * for, so that thread only parses the manifest and writes files. Requests are
 * handled strictly one after another. Not imported by anything else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { age, BrickpostError, RECORD_LIMITS } from '@brickpost/manifest';
import { decodeChunk, decodeFrame } from '../chunk/codec.js';
import { forPost, serializeError } from '../chunk/messages.js';
import { PackCursor } from './pack-cursor.js';
import { RefError, type ReaderReply, type ReaderRequest, type ReaderInit } from './reader-messages.js';

const init = workerData as ReaderInit;
const identities = age.parseIdentityFile(init.identityText);
const key = Buffer.from(init.key);
const sequential = new Map<number, PackCursor>();
const finished = new Set<number>(init.random ?? []);
const random = new Map<number, PackCursor>();
let chain: Promise<void> = Promise.resolve();

async function cursorFor(pack: number): Promise<PackCursor> {
  if (!finished.has(pack)) {
    let c = sequential.get(pack);
    if (!c) sequential.set(pack, (c = await PackCursor.open(bagOf(pack), pack, init.shipment, identities)));
    return c;
  }
  let r = random.get(pack);
  if (!r) {
    if (random.size >= 4) {
      const [k, old] = random.entries().next().value as [number, PackCursor];
      random.delete(k);
      await old.close();
    }
    random.set(pack, (r = await PackCursor.open(bagOf(pack), pack, init.shipment, identities)));
  }
  return r;
}

async function handle(req: ReaderRequest): Promise<ReaderReply> {
  if (req.op === 'read') {
    const c = await cursorFor(req.pack);
    const chunks: Uint8Array[] = [];
    for (const [i, [off, clen, len, id, kind]] of req.refs.entries()) {
      try {
        const frame = finished.has(req.pack) ? await c.readRandom(off, clen) : await c.read(off, clen);
        if (kind === 'delta') chunks.push(decodeFrame(frame, len, { maxLength: RECORD_LIMITS.maxDeltaLength }));
        else chunks.push(decodeChunk(frame, len, Buffer.from(id, 'hex'), key));
      } catch (e) {
        throw e instanceof BrickpostError ? new RefError(i, e) : e;
      }
    }
    return { seq: req.seq, ok: true, chunks };
  }
  if (req.op === 'finish') {
    const c = await cursorFor(req.pack);
    sequential.delete(req.pack);
    finished.add(req.pack);
    return { seq: req.seq, ok: true, plain: await c.finish(null, req.sha256), chunks: [] };
  }
  for (const c of [...sequential.values(), ...random.values()]) await c.close();
  return { seq: req.seq, ok: true, chunks: [] };
}

parentPort!.on('message', (req: ReaderRequest) => {
  chain = chain
    .then(async () => {
      let reply: ReaderReply;
      try {
        reply = await handle(req);
      } catch (e) {
        reply = { seq: req.seq, ok: false, error: serializeError(e) };
      }
      // Move only buffers a chunk owns whole: a small one may sit in Node's shared pool.
      const transfer: ArrayBuffer[] = [];
      if (reply.ok) reply = { ...reply, chunks: reply.chunks.map((c) => forPost(c, true, transfer)) };
      parentPort!.postMessage(reply, transfer);
    })
    .catch((e: unknown) => parentPort!.postMessage({ seq: req.seq, ok: false, error: serializeError(e) } satisfies ReaderReply));
});

function bagOf(pack: number): string {
  return init.packDirs ? init.packDirs.bags[init.packDirs.of[pack]!]! : init.bag;
}
