import { createReadStream, createWriteStream } from 'node:fs';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  HeadObjectCommand,
  UploadPartCopyCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { s3Error } from './client.js';
import type { S3Place } from './url.js';

/** The state folder under a destination prefix: the same reserved name as a folder destination's. */
export const STATE_DIR = '.brickpost/';

/** S3's largest object for one CopyObject, and the part size of a larger copy. */
const COPY_MAX = 5 * 1024 ** 3;
const COPY_PART = 1024 ** 3;

/** Small helpers over one bucket and prefix; every failure is an s3Error naming the key. */
export class Objects {
  constructor(
    readonly client: S3Client,
    readonly place: S3Place,
  ) {}

  /** The key of `rel` below the prefix. */
  key(rel: string): string {
    return this.place.prefix + rel;
  }

  async getJson<T>(rel: string): Promise<T | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.place.bucket, Key: this.key(rel) }));
      return JSON.parse(await r.Body!.transformToString('utf8')) as T;
    } catch (e) {
      const err = e as { name?: string };
      if (err.name === 'NoSuchKey') return null;
      throw s3Error(e, 'cannot read', this.place, this.key(rel));
    }
  }

  async putJson(rel: string, value: unknown): Promise<void> {
    await this.send(
      () =>
        this.client.send(
          new PutObjectCommand({ Bucket: this.place.bucket, Key: this.key(rel), Body: JSON.stringify(value, null, 1) + '\n', ContentType: 'application/json' }),
        ),
      'cannot write',
      rel,
    );
  }

  async putFile(rel: string, file: string): Promise<void> {
    // Streamed in parts: a tree file grows with the dataset.
    await this.send(
      () =>
        new Upload({
          client: this.client,
          params: { Bucket: this.place.bucket, Key: this.key(rel), Body: createReadStream(file) },
          partSize: 8 << 20,
          queueSize: 2,
        }).done(),
      'cannot write',
      rel,
    );
  }

  /** Downloads `rel` into `file`; false when there is no such object. */
  async getFile(rel: string, file: string): Promise<boolean> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.place.bucket, Key: this.key(rel) }));
      await pipeline(r.Body as Readable, createWriteStream(file));
      return true;
    } catch (e) {
      if ((e as { name?: string }).name === 'NoSuchKey') return false;
      throw s3Error(e, 'cannot read', this.place, this.key(rel));
    }
  }

  /** `length` bytes of `rel` from `offset` (a ranged GET). */
  async range(rel: string, offset: number, length: number): Promise<Buffer> {
    if (length === 0) return Buffer.alloc(0);
    try {
      const r = await this.client.send(
        new GetObjectCommand({ Bucket: this.place.bucket, Key: this.key(rel), Range: `bytes=${offset}-${offset + length - 1}` }),
      );
      return Buffer.from(await r.Body!.transformToByteArray());
    } catch (e) {
      throw s3Error(e, 'cannot read', this.place, this.key(rel));
    }
  }

  /**
   * Copies `from` to `to` (both below the prefix), content type and
   * metadata with it, on the server. An object of `size` over S3's 5 GiB
   * limit for one copy is copied in 1 GiB parts (UploadPartCopy).
   */
  async copy(from: string, to: string, size = 0): Promise<void> {
    if (size > COPY_MAX) return this.copyParts(from, to, size);
    if (to.endsWith('/')) {
      // A folder marker is written anew: some servers refuse to copy onto a folder's key.
      const h = await this.client.send(new HeadObjectCommand({ Bucket: this.place.bucket, Key: this.key(from) })).catch((e: unknown) => {
        throw s3Error(e, 'cannot read', this.place, this.key(from));
      });
      const meta = { ...(h.ContentType ? { ContentType: h.ContentType } : {}), Metadata: h.Metadata ?? {} };
      return this.send(() => this.client.send(new PutObjectCommand({ Bucket: this.place.bucket, Key: this.key(to), Body: '', ...meta })), 'cannot write', to);
    }
    await this.send(
      () =>
        this.client.send(
          new CopyObjectCommand({
            Bucket: this.place.bucket,
            Key: this.key(to),
            CopySource: `${this.place.bucket}/${encodeKey(this.key(from))}`,
            MetadataDirective: 'COPY',
          }),
        ),
      'cannot copy into',
      to,
    );
  }

  private async copyParts(from: string, to: string, size: number): Promise<void> {
    const Bucket = this.place.bucket;
    const Key = this.key(to);
    const CopySource = `${Bucket}/${encodeKey(this.key(from))}`;
    try {
      const h = await this.client.send(new HeadObjectCommand({ Bucket, Key: this.key(from) }));
      const up = await this.client.send(
        new CreateMultipartUploadCommand({ Bucket, Key, ...(h.ContentType ? { ContentType: h.ContentType } : {}), Metadata: h.Metadata ?? {} }),
      );
      try {
        const parts: Array<{ ETag: string; PartNumber: number }> = [];
        for (let n = 1, at = 0; at < size; n++, at += COPY_PART) {
          const end = Math.min(size, at + COPY_PART) - 1;
          const r = await this.client.send(
            new UploadPartCopyCommand({ Bucket, Key, UploadId: up.UploadId!, PartNumber: n, CopySource, CopySourceRange: `bytes=${at}-${end}` }),
          );
          parts.push({ ETag: r.CopyPartResult!.ETag!, PartNumber: n });
        }
        await this.client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: up.UploadId!, MultipartUpload: { Parts: parts } }));
      } catch (e) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: up.UploadId! })).catch(() => undefined);
        throw e;
      }
    } catch (e) {
      throw s3Error(e, 'cannot copy into', this.place, Key);
    }
  }

  /**
   * Deletes many objects, 1000 to a request (DeleteObjects); a server that
   * refuses batches gets one request per object.
   */
  async deleteMany(rels: AsyncIterable<string> | Iterable<string>): Promise<void> {
    let batch: string[] = [];
    const flush = async (): Promise<void> => {
      const keys = batch;
      batch = [];
      if (keys.length === 0) return;
      try {
        const r = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.place.bucket, Delete: { Objects: keys.map((k) => ({ Key: this.key(k) })), Quiet: true } }),
        );
        if ((r.Errors ?? []).length === 0) return;
      } catch {
        // Some servers take only single deletes: they follow.
      }
      await eachLimited(keys, 8, (k) => this.delete(k));
    };
    for await (const rel of rels) {
      batch.push(rel);
      if (batch.length >= 1000) await flush();
    }
    await flush();
  }

  async delete(rel: string): Promise<void> {
    await this.send(() => this.client.send(new DeleteObjectCommand({ Bucket: this.place.bucket, Key: this.key(rel) })), 'cannot delete', rel);
  }

  /** Every object below `rel` (a folder, '' for the whole prefix): its path below the prefix and its size. */
  async *list(rel: string): AsyncGenerator<{ rel: string; size: number }> {
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.place.bucket, Prefix: this.key(rel), ...(token ? { ContinuationToken: token } : {}) }),
        );
      } catch (e) {
        throw s3Error(e, 'cannot list', this.place, this.key(rel));
      }
      for (const o of page.Contents ?? []) yield { rel: o.Key!.slice(this.place.prefix.length), size: o.Size ?? 0 };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** The folders directly below `rel` (ListObjectsV2 with a delimiter): each as a path below the prefix, ending in `/`. */
  async *folders(rel: string): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.place.bucket, Prefix: this.key(rel), Delimiter: '/', ...(token ? { ContinuationToken: token } : {}) }),
        );
      } catch (e) {
        throw s3Error(e, 'cannot list', this.place, this.key(rel));
      }
      for (const p of page.CommonPrefixes ?? []) yield p.Prefix!.slice(this.place.prefix.length);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private async send(call: () => Promise<unknown>, what: string, rel: string): Promise<void> {
    try {
      await call();
    } catch (e) {
      throw s3Error(e, what, this.place, this.key(rel));
    }
  }
}

/** A key as CopySource takes it: URL-encoded, `/` kept. */
function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** Runs `fn` over `items` with at most `n` at once. */
export async function eachLimited<T>(items: AsyncIterable<T> | Iterable<T>, n: number, fn: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  let failed: unknown = null;
  for await (const item of items) {
    if (failed) break;
    const p: Promise<void> = fn(item).then(
      () => void running.delete(p),
      (e: unknown) => {
        running.delete(p);
        failed ??= e;
      },
    );
    running.add(p);
    if (running.size >= n) await Promise.race(running);
  }
  await Promise.all(running);
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the first failure as it came (unknown)
  if (failed) throw failed;
}
