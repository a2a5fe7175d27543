import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type Database from 'better-sqlite3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  BrickpostError,
  quote,
  type DeltaRef,
  type DirRecord,
  type FileRecord,
  type HardRecord,
  type HeldRef,
  type LinkRecord,
  type SpecialRecord,
} from '@brickpost/manifest';
import { chunkId } from '../chunk/id.js';
import { deltaChunk } from '../delta/index.js';
import { failpoint } from '../io/failpoint.js';
import { chunkBuffer, type ChunkBytes } from '../verify/native-readers.js';
import type { ShipmentVisitor } from '../verify/walk-shipment.js';
import { s3Error } from './client.js';
import { objectMetadata } from './meta.js';
import type { Objects } from './objects.js';

/** Part size of a multipart upload, and parts buffered per upload: at most UPLOADS × (QUEUE + 1) × PART bytes in memory. */
export const PART = 8 << 20;
const QUEUE = 2;
/** Files uploaded at once. */
export const UPLOADS = 4;

const ZEROS = Buffer.alloc(1 << 20);

/**
 * Writes the files of a shipment as objects under the staging prefix, as
 * walkShipment hands over their verified chunks: each file streams into a
 * multipart upload (lib-storage; a small file is one PUT), UPLOADS files at
 * once. A held chunk is read back from the object of the old tree that
 * holds it, a delta applied to its basis object (ranged reads), and either
 * is checked against its keyed chunk id before it is sent. Files the
 * staging prefix already holds whole (an interrupted run) and files whose
 * content the old tree holds are not read (`wants`): they are copied on the
 * server afterwards, or left where they are.
 */
export class Stager implements ShipmentVisitor {
  bytesFromDrive = 0;
  bytesReused = 0;
  deltas = 0;
  filesWritten = 0;
  filesResumed = 0;
  private readonly running = new Set<Promise<void>>();
  private failed: unknown = null;
  private cur: { stream: PassThrough; done: Promise<void>; rec: FileRecord } | null = null;
  private readonly heldAt: Database.Statement;
  private readonly isMarker: Database.Statement;
  private readonly key: Buffer;

  constructor(
    private readonly o: Objects,
    private readonly staging: string,
    /** Paths to skip, with their reason: staged already, or left in place or copied (`survey` and the caller decide). */
    private readonly skip: (r: FileRecord) => boolean,
    tree: Database.Database,
    key: Buffer,
    private readonly later: (r: HardRecord) => void,
    private readonly onUploaded: (bytes: number) => void,
  ) {
    this.key = key;
    this.heldAt = tree.prepare('SELECT path, offset, len FROM old.chunks WHERE id = ?');
    this.isMarker = tree.prepare('SELECT 1 FROM files WHERE path = ? AND marker = 1').pluck();
  }

  wants(r: FileRecord): boolean {
    return !this.skip(r);
  }

  async dir(r: DirRecord): Promise<void> {
    // Folder markers: the survey chose them (empty folders, and folders that came from one).
    if (!this.isMarker.get(r.p + '/')) return;
    await this.start(r.p + '/', r.x, null);
    this.cur!.stream.end();
    this.track(this.cur!, 0);
  }

  async fileStart(r: FileRecord): Promise<void> {
    await this.start(r.p, r.x, r);
  }

  async chunk(data: ChunkBytes): Promise<void> {
    // A copy: the stream keeps the bytes until the upload has sent them.
    const b = Buffer.from(chunkBuffer(data));
    this.bytesFromDrive += b.length;
    await this.write(b);
  }

  async held(ref: HeldRef): Promise<void> {
    const p = this.cur!.rec.p;
    const at = this.heldAt.get(Buffer.from(ref[0], 'hex')) as { path: string; offset: number; len: number } | undefined;
    if (!at || at.len !== ref[1])
      throw new BrickpostError('BASIS_MISSING', `${quote(p)} reuses a chunk the destination's tree does not hold`, {
        path: p,
        hint: 'ask the publisher for a self-contained shipment (pack --full)',
      });
    const data = await this.o.range(at.path, at.offset, at.len);
    if (!chunkId(this.key, data).equals(Buffer.from(ref[0], 'hex'))) {
      throw new BrickpostError(
        'BASIS_MISSING',
        `object ${quote(this.o.key(at.path))} no longer holds the data ${quote(p)} reuses (changed since brickpost wrote it)`,
        { path: p, hint: 'ask the publisher for a self-contained shipment (pack --full)' },
      );
    }
    this.bytesReused += data.length;
    await this.write(data);
  }

  async delta(ref: DeltaRef, delta: Buffer): Promise<void> {
    const f = this.cur!.rec;
    const [basis, size, blockSize] = f.b!;
    const data = await deltaChunk((offset, length) => this.o.range(basis, offset, length), size, blockSize, delta, ref[4], quote(f.p));
    if (data.length !== ref[4] || !chunkId(this.key, data).equals(Buffer.from(ref[0], 'hex'))) {
      throw new BrickpostError(
        'BASIS_MISSING',
        `object ${quote(this.o.key(basis))}, the basis of ${quote(f.p)}'s delta, does not hold what the shipment expects`,
        { path: f.p, hint: 'ask the publisher for a self-contained shipment (pack --full)' },
      );
    }
    this.deltas++;
    this.bytesFromDrive += delta.length;
    await this.write(data);
  }

  async hole(length: number): Promise<void> {
    for (let left = length; left > 0; left -= ZEROS.length) await this.write(ZEROS.subarray(0, Math.min(left, ZEROS.length)));
  }

  fileEnd(r: FileRecord): void {
    const cur = this.cur!;
    cur.stream.end();
    this.track(cur, r.size);
    this.filesWritten++;
  }

  entry(r: LinkRecord | HardRecord | SpecialRecord): void {
    if (r.t === 'hard') this.later(r);
  }

  /** Waits for every upload; throws the first failure. */
  async finish(): Promise<void> {
    await Promise.allSettled([...this.running]);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the first failure as it came (unknown)
    if (this.failed) throw this.failed;
  }

  /** Stops the uploads under way (a failed walk): their parts are aborted by lib-storage. */
  async abort(): Promise<void> {
    this.cur?.stream.destroy(new Error('aborted'));
    await Promise.allSettled([...this.running]);
  }

  private async start(path: string, x: FileRecord['x'], rec: FileRecord | null): Promise<void> {
    while (this.running.size >= UPLOADS) await Promise.race(this.running);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the first failure as it came (unknown)
    if (this.failed) throw this.failed;
    const m = objectMetadata(x);
    const stream = new PassThrough({ highWaterMark: 1 << 20 });
    const key = this.o.key(this.staging + path);
    const upload = new Upload({
      client: this.o.client,
      params: { Bucket: this.o.place.bucket, Key: key, Body: stream, ...(m.contentType ? { ContentType: m.contentType } : {}), Metadata: m.metadata },
      partSize: PART,
      queueSize: QUEUE,
      leavePartsOnError: false,
    });
    const done = upload.done().then(
      () => undefined,
      (e: unknown) => {
        stream.destroy();
        throw s3Error(e, 'cannot upload', this.o.place, key);
      },
    );
    done.catch(() => undefined);
    this.cur = { stream, done, rec: rec ?? ({ p: path, size: 0 } as FileRecord) };
  }

  private track(cur: { done: Promise<void> }, size: number): void {
    const p: Promise<void> = cur.done.then(
      () => {
        this.running.delete(p);
        this.onUploaded(size);
        failpoint('s3-staged');
      },
      (e: unknown) => {
        this.running.delete(p);
        this.failed ??= e;
      },
    );
    this.running.add(p);
  }

  private async write(b: Buffer): Promise<void> {
    const cur = this.cur!;
    if (cur.stream.write(b)) return;
    await Promise.race([
      once(cur.stream, 'drain'),
      cur.done.then(() => {
        throw new BrickpostError('IO', `the upload of ${quote(cur.rec.p)} ended before its last byte`);
      }),
    ]);
  }
}
