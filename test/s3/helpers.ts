/** Objects of a prefix as a comparable map, and small writers, for the object storage tests. */
import { createHash } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

export interface ObjectNode {
  size: number;
  sha256: string;
  contentType: string | undefined;
  metadata: Record<string, string>;
}

/** Every object under `prefix` (keys relative to it), except brickpost's state folder, with its bytes' hash and metadata. */
export async function objects(client: S3Client, bucket: string, prefix: string): Promise<Map<string, ObjectNode>> {
  const out = new Map<string, ObjectNode>();
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
    for (const o of page.Contents ?? []) {
      const rel = o.Key!.slice(prefix.length);
      if (rel.startsWith('.brickpost/')) continue;
      const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
      const body = Buffer.from(await r.Body!.transformToByteArray());
      const metadata = Object.fromEntries(
        Object.entries(r.Metadata ?? {})
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => [k, text(v)]),
      );
      out.set(rel, { size: body.length, sha256: createHash('sha256').update(body).digest('hex'), contentType: r.ContentType, metadata });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

/** Keys of every object under `prefix`, brickpost's state folder included. */
export async function keys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
    for (const o of page.Contents ?? []) out.push(o.Key!.slice(prefix.length));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out.sort();
}

export async function put(
  client: S3Client,
  bucket: string,
  key: string,
  body: Buffer | string,
  meta: { contentType?: string; metadata?: Record<string, string> } = {},
): Promise<void> {
  await client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: body,
      ...(meta.contentType ? { ContentType: meta.contentType } : {}),
      ...(meta.metadata ? { Metadata: meta.metadata } : {}),
    }),
  );
}

export async function head(client: S3Client, bucket: string, key: string): Promise<{ contentType: string | undefined; metadata: Record<string, string> }> {
  const h = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  return { contentType: h.ContentType, metadata: h.Metadata ?? {} };
}

/** Differences between two object maps, as readable lines (empty when equal). */
export function diffObjects(a: Map<string, ObjectNode>, b: Map<string, ObjectNode>, limit = 20): string[] {
  const d: string[] = [];
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w) d.push(`missing: ${k}`);
    else if (JSON.stringify(v) !== JSON.stringify(w)) d.push(`differs: ${k}: ${JSON.stringify(v)} vs ${JSON.stringify(w)}`);
    if (d.length >= limit) return d;
  }
  for (const k of b.keys()) if (!a.has(k)) d.push(`extra: ${k}`);
  return d.slice(0, limit);
}

/** Deterministic pseudo-random bytes (SHA-256 in counter mode). */
export function bytes(seed: string, n: number): Buffer {
  const out = Buffer.alloc(n + 32);
  for (let o = 0, i = 0; o < n; o += 32, i++) createHash('sha256').update(`${seed}/${i}`).digest().copy(out, o);
  return out.subarray(0, n);
}

/** A metadata value's text: an RFC 2047 word decoded, raw UTF-8 (read by Node as Latin-1) read as UTF-8. */
export function text(v: string): string {
  const word = /^=\?UTF-8\?B\?([^?]*)\?=$/i.exec(v);
  if (word) return Buffer.from(word[1]!, 'base64').toString('utf8');
  return /[\x80-\xff]/.test(v) && /^[\x00-\xff]*$/.test(v) ? Buffer.from(v, 'latin1').toString('utf8') : v;
}
