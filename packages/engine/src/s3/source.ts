import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import {
  BrickpostError,
  compareNames,
  foldKey,
  nameProblem,
  quote,
  RECORD_LIMITS,
  RESERVED_ROOT_NAME,
  type EntryAttributes,
  type Xattr,
} from '@brickpost/manifest';
import type { S3Options } from '../api/index.js';
import type { SkippedEntry, SourceEntry, WalkOptions } from '../scan/index.js';
import { s3Client, s3Error } from './client.js';
import { metadataAttrs } from './meta.js';
import { parseS3Url, type S3Place } from './url.js';
import { removeTree } from '../io/remove-tree.js';

/** An object of a listing level. */
interface ObjectInfo {
  key: string;
  size: number;
  etag: string;
  modified: Date;
}

/** One level of a prefix: its objects and its folders (common prefixes), by name. */
interface Level {
  files: Map<string, ObjectInfo>;
  dirs: Set<string>;
  /** The zero-byte object whose key is the level's own prefix (a "folder marker"), if any. */
  marker: ObjectInfo | null;
}

/** Downloads and HEADs of objects in flight at once. */
const CONCURRENCY = 8;

/**
 * The objects under `s3://BUCKET/PREFIX` as pack's source: keys as paths
 * (split at `/`), walked one level at a time (ListObjectsV2 with a `/`
 * delimiter) in manifest order, with the name rules and refusals of a
 * folder. Each object's size, Last-Modified (as mtime), ETag, Content-Type
 * and user metadata are recorded (as `user.s3.*` attributes, meta.ts); its
 * ETag and Last-Modified stand in for the inode and change time of the stat
 * cache, so an unchanged object is not read again. An object's bytes are
 * downloaded, when pack reads it, into a scratch file the chunker reads;
 * the file is removed as soon as it is chunked.
 */
export class S3Source {
  readonly place: S3Place;
  readonly client: S3Client;
  private scratch: string | null = null;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private serial = 0;

  constructor(url: string, opts: S3Options = {}) {
    this.place = parseS3Url(url);
    this.client = s3Client(opts);
  }

  /** The dataset's default name: the prefix's last folder, else the bucket. */
  get name(): string {
    const p = this.place.prefix.slice(0, -1);
    return p ? p.slice(p.lastIndexOf('/') + 1) : this.place.bucket;
  }

  /** @throws BrickpostError NOT_FOUND (no bucket), PERMISSION (credentials refused, access denied), IO */
  async check(): Promise<void> {
    try {
      await this.client.send(new ListObjectsV2Command({ Bucket: this.place.bucket, Prefix: this.place.prefix, MaxKeys: 1 }));
    } catch (e) {
      throw s3Error(e, 'cannot list', this.place);
    }
  }

  /** The entries in manifest order (SourceEntry.abs is the object's s3:// URL). */
  async *walk(skip: (s: SkippedEntry) => void, opts: WalkOptions = {}): AsyncGenerator<SourceEntry> {
    const top = await this.list('');
    yield* this.entries(top, '', skip, opts);
  }

  /** Totals, as scan's measure gives them for a folder. */
  async measure(opts: Pick<WalkOptions, 'exclude'> = {}): Promise<{ files: number; dirs: number; bytes: number; others: number }> {
    const t = { files: 0, dirs: 0, bytes: 0, others: 0 };
    for await (const e of this.walk(() => undefined, { ...opts, attributes: false })) {
      if (e.type === 'dir') t.dirs++;
      else (t.files++, (t.bytes += e.size));
    }
    return t;
  }

  private async *entries(level: Level, rel: string, skip: (s: SkippedEntry) => void, opts: WalkOptions): AsyncGenerator<SourceEntry> {
    const names: Array<{ name: string; dir: boolean }> = [];
    for (const name of level.dirs) names.push({ name, dir: true });
    for (const [name, o] of level.files) {
      const childRel = rel ? `${rel}/${name}` : name;
      if (level.dirs.has(name)) {
        skip({ path: childRel, reason: `an object and a folder of the same name (${quote(o.key)} and keys under ${quote(o.key + '/')})`, kind: 'name' });
        continue;
      }
      names.push({ name, dir: false });
    }
    const kept = names.filter(({ name, dir }) => {
      const childRel = rel ? `${rel}/${name}` : name;
      if (rel === '' && foldKey(name) === RESERVED_ROOT_NAME) {
        skip({ path: name, reason: 'reserved name (a brickpost destination state folder)', kind: 'reserved' });
        return false;
      }
      const problem = nameProblem(name);
      if (problem) {
        skip({ path: childRel, reason: problem, kind: 'name' });
        return false;
      }
      if (opts.exclude?.excludes(childRel, dir)) {
        skip({ path: childRel, reason: 'excluded', kind: 'excluded' });
        return false;
      }
      return true;
    });
    kept.sort((a, b) => compareNames(a.name, b.name));
    // Attributes need one HEAD per object: a window of them runs ahead of the entries given out.
    const heads: Array<Promise<EntryAttributes> | null> = [];
    const head = (i: number): void => {
      const k = kept[i];
      if (!k || k.dir || opts.attributes === false) return void (heads[i] = null);
      const p = this.attributes(level.files.get(k.name)!, opts.warn);
      p.catch(() => undefined);
      heads[i] = p;
    };
    for (let i = 0; i < Math.min(kept.length, CONCURRENCY * 4); i++) head(i);
    for (let i = 0; i < kept.length; i++) {
      head(i + CONCURRENCY * 4);
      const { name, dir } = kept[i]!;
      const childRel = rel ? `${rel}/${name}` : name;
      if (dir) {
        const below = await this.list(childRel);
        const m = below.marker;
        yield {
          type: 'dir',
          path: childRel,
          abs: this.url(this.place.prefix + childRel + '/'),
          size: 0,
          mode: 0o755,
          mtimeNs: m ? BigInt(m.modified.getTime()) * 1_000_000n : 0n,
          ino: 0n,
          ctimeNs: 0n,
          attrs: m && opts.attributes !== false ? await this.attributes(m, opts.warn) : {},
        };
        yield* this.entries(below, childRel, skip, opts);
        continue;
      }
      const o = level.files.get(name)!;
      const attrs = (await heads[i]) ?? {};
      heads[i] = null;
      const mtimeNs = BigInt(o.modified.getTime()) * 1_000_000n;
      yield { type: 'file', path: childRel, abs: this.url(o.key), size: o.size, mode: 0o644, mtimeNs, ino: etagInode(o.etag), ctimeNs: mtimeNs, attrs };
    }
  }

  /** Lists one level: the keys directly under PREFIX/rel/, and its sub-folders. */
  private async list(rel: string): Promise<Level> {
    const prefix = this.place.prefix + (rel ? rel + '/' : '');
    const level: Level = { files: new Map(), dirs: new Set(), marker: null };
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.place.bucket, Prefix: prefix, Delimiter: '/', ...(token ? { ContinuationToken: token } : {}) }),
        );
      } catch (e) {
        throw s3Error(e, 'cannot list', this.place, prefix);
      }
      for (const c of page.CommonPrefixes ?? []) {
        const name = c.Prefix!.slice(prefix.length, -1);
        level.dirs.add(name);
      }
      for (const o of page.Contents ?? []) {
        const info = { key: o.Key!, size: o.Size ?? 0, etag: o.ETag ?? '', modified: o.LastModified ?? new Date(0) };
        if (o.Key === prefix) level.marker = info;
        else level.files.set(o.Key!.slice(prefix.length), info);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return level;
  }

  /** The object's recorded attributes: ETag, Content-Type, user metadata (meta.ts). */
  private async attributes(o: ObjectInfo, warn: WalkOptions['warn']): Promise<EntryAttributes> {
    const h = await this.limited(() => this.client.send(new HeadObjectCommand({ Bucket: this.place.bucket, Key: o.key }))).catch((e: unknown) => {
      throw s3Error(e, 'cannot read the metadata of', this.place, o.key);
    });
    const x: Xattr[] = metadataAttrs({ etag: h.ETag ?? o.etag, contentType: h.ContentType, metadata: h.Metadata ?? {} });
    const total = x.reduce((n, [k, v]) => n + k.length + v.length, 0);
    if (x.length > RECORD_LIMITS.xattrs || total > RECORD_LIMITS.xattrTotalBytes) {
      warn?.(`the metadata of ${quote(o.key)} is not recorded: it has more than ${RECORD_LIMITS.xattrs} entries`, o.key);
      return {};
    }
    return x.length > 0 ? { x } : {};
  }

  /**
   * Downloads the object of `entry` into a scratch file and gives its path
   * (the chunker reads it); `release` removes it. Several run at once.
   * @throws BrickpostError NOT_FOUND (gone since listed: pack leaves it out), PERMISSION, IO
   */
  async fetch(entry: SourceEntry): Promise<string> {
    this.scratch ??= await mkdtemp(join(tmpdir(), 'brickpost-s3-'));
    const key = entry.abs.slice(`s3://${this.place.bucket}/`.length);
    const file = join(this.scratch, String(++this.serial));
    await this.limited(async () => {
      try {
        const r = await this.client.send(new GetObjectCommand({ Bucket: this.place.bucket, Key: key }));
        await pipeline(r.Body as Readable, createWriteStream(file));
      } catch (e) {
        await rm(file, { force: true });
        const err = s3Error(e, 'cannot read', this.place, key);
        // pack leaves out a file that vanished or cannot be read, naming it by its path.
        throw err.code === 'NOT_FOUND' || err.code === 'PERMISSION' ? new BrickpostError(err.code, err.message, { path: entry.path, cause: e }) : err;
      }
    });
    return file;
  }

  release(file: string): Promise<void> {
    return rm(file, { force: true });
  }

  async close(): Promise<void> {
    if (this.scratch) await removeTree(this.scratch);
    this.client.destroy();
  }

  private url(key: string): string {
    return `s3://${this.place.bucket}/${key}`;
  }

  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    while (this.running >= CONCURRENCY) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

/** A stand-in inode for the stat cache: 62 bits of the ETag's hash, so a changed ETag misses it. */
function etagInode(etag: string): bigint {
  return createHash('sha256').update(etag).digest().readBigUInt64BE(0) >> 2n;
}
