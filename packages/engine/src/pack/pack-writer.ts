import { randomBytes } from 'node:crypto';
import type { NativeBinding, PayloadSealer } from '@brickpost/native';
import type { Frame } from '../chunk/index.js';
import { age, frame, packPath } from '@brickpost/manifest';
import { PACK_FORMAT } from '../drive/layout.js';
import { HEADER_FRAME_NIBBLE } from '../io/header-frame.js';
import { fromNative } from '../io/native.js';
import type { SeqWriter } from '../io/seq-writer.js';

/** What a finished pack is, for the manifest's pack index and the bag manifest. */
export interface PackInfo {
  index: number;
  /** The data share (drive of a set, 0-based) that holds it. */
  share: number;
  path: string;
  size: number;
  plain: number;
  chunks: number;
  sha256: string;
}

/**
 * The plaintext header of a pack: a zstd skippable frame holding
 * `brickpost-pack/v1\n` and a JSON line binding the pack to its shipment and
 * index (FORMAT.md §pack). `zstd -d` skips it.
 */
export function packHeaderFrame(shipment: string, index: number): Buffer {
  const text = `${PACK_FORMAT}\n${JSON.stringify({ shipment, pack: index })}\n`;
  return frame.skippableFrame(HEADER_FRAME_NIBBLE, Buffer.from(text, 'utf8'));
}

/** Plaintext gathered before the native core seals it: 32 STREAM chunks. */
const SEAL_BATCH = 2 << 20;
/** Reused output Buffers of a pack: one being sealed, one being written, the rest for the writes in flight. */
const RING = 4;

/**
 * The sealed-output Buffers of one share's packs, passed from each pack to
 * the next: a shipment allocates them once per share, not once per pack
 * (each set is about 8.5 MiB, and one left to the garbage collector per
 * pack raised a 2 GiB pack's peak memory).
 */
export class SealRing {
  /** Each Buffer, and the file size once its bytes are queued (Infinity while it is being filled). */
  readonly slots: Array<{ buf: Buffer; end: number }> = [];
  at = 0;

  /** Every write of the pack that used it has completed: all Buffers are free. */
  release(): void {
    for (const slot of this.slots) slot.end = 0;
  }
}

/**
 * Writes one pack: an age file (to all recipients) whose plaintext is the
 * pack header frame followed by chunk frames. Tracks the plaintext offset of
 * each frame so the manifest can point at it. With the native core, frames
 * are sealed and the file hashed in batches off this thread, and written in
 * order behind the caller, which waits only for an output Buffer to come
 * free; otherwise PayloadEncryptor seals them here and the SeqWriter hashes.
 */
export class PackWriter {
  private plainSize = 0;
  private chunkCount = 0;
  private batch: Frame[] = [];
  private batchBytes = 0;
  /** The seals and writes queued (never rejects: a failure is kept in `failed`). */
  private writing: Promise<void> = Promise.resolve();
  private failed: { error: unknown } | null = null;

  private constructor(
    readonly index: number,
    readonly share: number,
    readonly relPath: string,
    private readonly out: SeqWriter,
    private readonly enc: age.PayloadEncryptor | null,
    private readonly sealer: PayloadSealer | null,
    /** Output Buffers reused once written, when nothing downstream keeps the sealed bytes; null: a new Buffer per batch. */
    private readonly ring: SealRing | null = null,
  ) {}

  /**
   * Starts pack `index` of data share `share` in `out`, a new file at the
   * pack's bag path (created without hashing when `core` is given). With
   * `ring`, sealed bytes go into its Buffers, overwritten once written.
   * @throws BrickpostError NO_SPACE, PERMISSION, IO
   */
  static async create(
    out: SeqWriter,
    index: number,
    share: number,
    recipients: age.Recipient[],
    shipment: string,
    core: NativeBinding | null = null,
    ring: SealRing | null = null,
  ): Promise<PackWriter> {
    const rel = packPath(index);
    const { header, fileKey } = age.createHeader(recipients);
    let w: PackWriter;
    if (core) {
      const nonce = randomBytes(age.PAYLOAD_NONCE_SIZE);
      const prefix = Buffer.concat([header, nonce]);
      await out.write(prefix);
      w = new PackWriter(index, share, rel, out, null, new core.PayloadSealer(age.payloadKey(fileKey, nonce), prefix), ring);
    } else {
      const enc = new age.PayloadEncryptor(fileKey);
      await out.write(header);
      await out.write(enc.nonce);
      w = new PackWriter(index, share, rel, out, enc, null);
    }
    await w.plain(packHeaderFrame(shipment, index));
    return w;
  }

  /** Plaintext bytes so far (header frame included). */
  get size(): number {
    return this.plainSize;
  }

  /** Appends one chunk frame; returns its plaintext offset. */
  async add(frameBytes: Frame): Promise<number> {
    const at = this.plainSize;
    await this.plain(frameBytes);
    this.chunkCount++;
    return at;
  }

  private async plain(buf: Frame): Promise<void> {
    this.plainSize += buf.length;
    if (!this.sealer) {
      // Without the native core every frame is a Buffer.
      for (const c of this.enc!.update(buf as Buffer)) await this.out.write(c);
      return;
    }
    // A batch stays within SEAL_BATCH unless one frame is larger: the ring's Buffers stay near that size.
    if (this.batchBytes > 0 && this.batchBytes + buf.length > SEAL_BATCH) await this.seal(false);
    this.batch.push(buf);
    this.batchBytes += buf.length;
    if (this.batchBytes >= SEAL_BATCH) await this.seal(false);
  }

  /**
   * Hands the gathered plaintext to the sealer and queues its write behind
   * the batches before it: the caller goes on gathering while the sealer's
   * thread and the file system work (waiting here made each stage wait for
   * the others in turn). It waits only for a reused Buffer to be written.
   * @throws the first error of a seal or write queued before
   */
  private async seal(last: boolean): Promise<void> {
    if (this.failed) throw this.failed.error;
    let into: Buffer | null = null;
    const ring = this.ring;
    if (ring) {
      const plain = this.batchBytes + age.STREAM_CHUNK;
      const need = plain + 16 * (Math.ceil(plain / age.STREAM_CHUNK) + 1);
      const i = ring.at;
      ring.at = (i + 1) % RING;
      let slot = ring.slots[i];
      if (slot && (slot.end === Infinity || this.out.written < slot.end)) {
        // The Buffer's bytes are still queued or being written: let the writes before catch up (calls on `out` stay one at a time).
        await this.after(() => this.out.drain());
      }
      if (!slot || slot.buf.length < need) slot = ring.slots[i] = { buf: Buffer.allocUnsafeSlow(Math.max(need, SEAL_BATCH + 2 * age.STREAM_CHUNK)), end: 0 };
      slot.end = Infinity;
      into = slot.buf;
    }
    const buf = into;
    const sealed = (buf ? this.sealer!.sealInto(this.batch, last, buf).then((n) => buf.subarray(0, n)) : this.sealer!.seal(this.batch, last)).catch(
      (e: unknown) => Promise.reject(fromNative(e)),
    );
    sealed.catch(() => undefined);
    this.batch = [];
    this.batchBytes = 0;
    void this.after(async () => this.writeSealed(await sealed)).catch(() => undefined);
  }

  /** Queues `step` after every seal and write queued before; the first failure stops the queue and is kept. */
  private after(step: () => Promise<void>): Promise<void> {
    const next = this.writing.then(async () => {
      if (this.failed) throw this.failed.error;
      try {
        await step();
      } catch (e) {
        this.failed ??= { error: e };
        throw e;
      }
    });
    this.writing = next.catch(() => undefined);
    return next;
  }

  /**
   * Writes sealed STREAM chunks as the JavaScript path does, each chunk's
   * ciphertext and tag on their own (views, no copies), so the drive's
   * taps (byte count, recovery data, parity) see the same writes.
   */
  private async writeSealed(sealed: Buffer): Promise<void> {
    for (let at = 0; at < sealed.length; at += age.SEALED_CHUNK) {
      const end = Math.min(at + age.SEALED_CHUNK, sealed.length);
      if (end - 16 > at) await this.out.write(sealed.subarray(at, end - 16));
      await this.out.write(sealed.subarray(end - 16, end));
    }
    // A reused Buffer is free again once the file has been written to here.
    for (const slot of this.ring?.slots ?? []) if (slot.end === Infinity && sealed.buffer === slot.buf.buffer) slot.end = this.out.size;
  }

  /** Seals the last STREAM chunk, syncs and closes. */
  async close(): Promise<PackInfo> {
    let sha256: string;
    if (this.sealer) {
      await this.seal(true);
      await this.writing;
      if (this.failed) throw this.failed.error;
      sha256 = await this.sealer.digest();
      await this.out.close();
      // Every write has completed: the next pack of this share may fill the Buffers.
      this.ring?.release();
    } else {
      for (const c of this.enc!.final()) await this.out.write(c);
      sha256 = await this.out.close();
    }
    return { index: this.index, share: this.share, path: this.relPath, size: this.out.size, plain: this.plainSize, chunks: this.chunkCount, sha256 };
  }

  async abort(): Promise<void> {
    await this.writing;
    await this.out.abort();
  }
}
