import { join } from 'node:path';
import { nativeErrorParts, type NativeBinding, type NativeBytes, type PackReader } from '@brickpost/native';
import { age, BrickpostError, frame, packPath, parseStrictJson, quote, RECORD_LIMITS } from '@brickpost/manifest';
import { CHUNK_PARAMS_V1 } from '../chunk/params.js';
import { openPackFile } from './pack-cursor.js';
import { toEnvironmentError } from '../io/errors.js';
import { failpointError, fsError } from '../io/failpoint.js';
import { HEADER_FRAME_NIBBLE } from '../io/header-frame.js';
import { fromNative } from '../io/native.js';
import { PACK_FORMAT } from '../drive/layout.js';
import { openAgeHandle } from './age-handle.js';
import { RefError, type ReaderInit, type ReaderRef } from './reader-messages.js';

/** A chunk's verified bytes: held natively (the native core), or a Buffer. */
export type ChunkBytes = Buffer | NativeBytes;

/** The bytes as a Buffer: the Buffer itself, or a copy of native bytes (which are freed). */
export function chunkBuffer(data: ChunkBytes): Buffer {
  if (Buffer.isBuffer(data)) return data;
  const b = data.toBuffer();
  data.release();
  return b;
}

/** Reads a shipment's packs for walkShipment: PackReaders (threads) or NativePackReaders. */
export interface PackSource {
  /** The verified bytes of the given chunks of pack `pack` (null for chunks not kept). */
  read(pack: number, refs: ReaderRef[]): Promise<Array<ChunkBytes | null>>;
  /** Reads pack `pack` to its end and checks its SHA-256; returns its plaintext size. */
  finish(pack: number, sha256: string): Promise<number>;
  close(): Promise<void>;
}

/** Packs read only where asked (after finish, or damaged) kept open at once. */
const RANDOM_OPEN = 4;

/**
 * Pack reading on the native core, as the pack reader threads do it
 * (reader-worker.ts): each pack is read front to back once by a thread of
 * its own, which hashes it for the fixity check, while the core's pool
 * decrypts its STREAM chunks and decodes and checks the frames asked for.
 * A pack read through (finish) or damaged is read only where asked. The
 * age header is unwrapped and the pack header frame checked here, as
 * PackCursor.open does. With `keep` false the chunks are checked and
 * dropped (deep verify needs no bytes).
 */
export class NativePackReaders implements PackSource {
  private readonly sequential = new Map<number, Promise<PackReader>>();
  private readonly random = new Map<number, Promise<PackReader>>();
  private readonly finished: Set<number>;
  private readonly key: Buffer;
  private readonly identities: age.Identity[];

  constructor(
    private readonly core: NativeBinding,
    private readonly init: ReaderInit,
    private readonly keep: boolean,
  ) {
    this.finished = new Set(init.random ?? []);
    this.key = Buffer.from(init.key);
    this.identities = age.parseIdentityFile(init.identityText);
  }

  private bagOf(pack: number): string {
    return this.init.packDirs ? this.init.packDirs.bags[this.init.packDirs.of[pack]!]! : this.init.bag;
  }

  private readerFor(pack: number): Promise<PackReader> {
    if (!this.finished.has(pack)) {
      let r = this.sequential.get(pack);
      if (!r) this.sequential.set(pack, (r = this.open(pack)));
      return r;
    }
    let r = this.random.get(pack);
    if (!r) {
      if (this.random.size >= RANDOM_OPEN) {
        const [k, old] = this.random.entries().next().value as [number, Promise<PackReader>];
        this.random.delete(k);
        void old.then(
          (o) => o.close(),
          () => undefined,
        );
      }
      this.random.set(pack, (r = this.open(pack)));
    }
    return r;
  }

  /** Opens pack `pack` as PackCursor.open does, then hands its descriptor to the core. */
  private async open(pack: number): Promise<PackReader> {
    const { fh, rel } = await openPackFile(this.bagOf(pack), pack);
    try {
      const h = await openAgeHandle(fh, rel, this.identities);
      const r = new this.core.PackReader(fh.fd, h.size, h.payloadStart, age.payloadKey(h.fileKey, h.nonce), this.key);
      try {
        await this.checkHeaderFrame(r, pack);
      } catch (e) {
        r.close();
        throw e;
      }
      return r;
    } catch (e) {
      throw this.named(e, pack);
    } finally {
      await fh.close();
    }
  }

  /** The `drive-read` failpoint, where PackCursor has it: before reading a pack. */
  private static driveRead(): void {
    failpointError('drive-read', () => fsError('EIO', 'i/o error'));
  }

  private async checkHeaderFrame(r: PackReader, pack: number): Promise<void> {
    const rel = packPath(pack);
    NativePackReaders.driveRead();
    const head = await r.readPlain(0, 8).catch((e: unknown) => Promise.reject(fromNative(e)));
    const size = head.readUInt32LE(4);
    if (size > 4096) throw new BrickpostError('MALFORMED', `pack ${quote(rel)} header frame is ${size} bytes`);
    const rest = await r.readPlain(8, size).catch((e: unknown) => Promise.reject(fromNative(e)));
    const f = frame.readSkippableFrame(Buffer.concat([head, rest]));
    if (f.magicNibble !== HEADER_FRAME_NIBBLE) throw new BrickpostError('MALFORMED', `pack ${quote(rel)} does not open with a brickpost header frame`);
    const text = f.payload.toString('utf8');
    const lines = text.split('\n');
    if (lines[0] !== PACK_FORMAT || lines.length !== 3 || lines[2] !== '') {
      throw new BrickpostError('UNSUPPORTED_VERSION', `pack ${quote(rel)} is not ${PACK_FORMAT}: ${quote(text.slice(0, 40))}`);
    }
    const meta = parseStrictJson(lines[1]!, { where: `pack ${rel} header` }) as { shipment?: unknown; pack?: unknown };
    if (meta.shipment !== this.init.shipment || meta.pack !== pack) {
      throw new BrickpostError(
        'MALFORMED',
        `pack ${quote(rel)} belongs to shipment ${quote(String(meta.shipment))} pack ${String(meta.pack)}, not to ${quote(this.init.shipment)} pack ${pack}`,
        {
          hint: 'a pack from another shipment was put on this drive',
        },
      );
    }
  }

  /** An error as PackCursor reports it: naming the pack. */
  private named(e: unknown, pack: number): BrickpostError {
    const rel = packPath(pack);
    const path = join(this.bagOf(pack), rel);
    const err = fromNative(e, (errno) => toEnvironmentError(errno, `cannot read pack ${rel}`, { on: 'drive', path }));
    if (!err.message.includes(rel))
      return new BrickpostError(err.code, `pack ${quote(rel)}: ${err.message}`, { cause: err, path, ...(err.hint ? { hint: err.hint } : {}) });
    return err;
  }

  async read(pack: number, refs: ReaderRef[]): Promise<Array<ChunkBytes | null>> {
    const random = this.finished.has(pack);
    const r = await this.readerFor(pack);
    const ids = Buffer.alloc(32 * refs.length);
    refs.forEach((ref, i) => ids.write(ref[3], 32 * i, 'hex'));
    try {
      NativePackReaders.driveRead();
      return await r.readChunks(
        refs.map((x) => x[0]),
        refs.map((x) => x[1]),
        refs.map((x) => x[2]),
        ids,
        refs.map((x) => x[4] === 'delta'),
        random,
        this.keep,
        CHUNK_PARAMS_V1.max,
        RECORD_LIMITS.maxDeltaLength,
      );
    } catch (e) {
      const at = nativeErrorParts(e).at;
      throw at !== null ? new RefError(at, this.named(e, pack)) : this.named(e, pack);
    }
  }

  async finish(pack: number, sha256: string): Promise<number> {
    const r = await this.readerFor(pack);
    this.sequential.delete(pack);
    this.finished.add(pack);
    try {
      NativePackReaders.driveRead();
      const end = await r.finish();
      if (end.sha256 !== sha256) {
        throw new BrickpostError('FIXITY_MISMATCH', `pack ${quote(packPath(pack))} does not match its SHA-256 in the signed payload manifest`, {
          path: join(this.bagOf(pack), packPath(pack)),
        });
      }
      return end.plain;
    } catch (e) {
      throw this.named(e, pack);
    } finally {
      r.close();
    }
  }

  async close(): Promise<void> {
    for (const r of [...this.sequential.values(), ...this.random.values()]) (await r.catch(() => null))?.close();
    this.sequential.clear();
    this.random.clear();
  }
}
