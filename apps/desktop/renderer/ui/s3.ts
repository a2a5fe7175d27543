/**
 * Object storage places as the wizards take them: an `s3://BUCKET[/PREFIX]`
 * URL checked by the rules the engine applies (README "Object storage"),
 * and the optional endpoint URL and profile. Credentials never pass here:
 * the engine takes them from the environment and ~/.aws files. No Node.
 */
import type { S3Options } from '@brickpost/engine/api';
import { h } from './dom.js';

/** True when `where` names object storage rather than a folder. */
export function isBucket(where: string): boolean {
  return /^s3:\/\//i.test(where);
}

/** What is wrong with a bucket name, in words, or null when S3 allows it. */
function bucketProblem(bucket: string): string | null {
  if (bucket === '') return 'it names no bucket: write s3://BUCKET or s3://BUCKET/PREFIX';
  if (bucket.length < 3 || bucket.length > 63) return `the bucket name "${bucket}" has ${bucket.length} characters; bucket names have 3 to 63`;
  if (/[A-Z]/.test(bucket)) return `the bucket name "${bucket}" has capital letters; bucket names are lower case`;
  if (/[^a-z0-9.-]/.test(bucket)) return `the bucket name "${bucket}" holds characters other than lower-case letters, digits, dots and hyphens`;
  if (!/^[a-z0-9].*[a-z0-9]$/.test(bucket)) return `the bucket name "${bucket}" must begin and end with a letter or a digit`;
  return null;
}

/**
 * The URL, normalised (no trailing slash), or what is wrong with it as one
 * sentence for an inline message.
 */
export function checkS3Url(text: string): { url: string } | { problem: string } {
  const t = text.trim();
  if (t === '') return { problem: 'Give the bucket as s3://BUCKET/PREFIX.' };
  if (!isBucket(t)) return { problem: `"${t}" does not begin with s3://; write it as s3://BUCKET/PREFIX.` };
  const rest = t.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const why = bucketProblem(bucket);
  if (why) return { problem: `${why[0]!.toUpperCase()}${why.slice(1)}.` };
  const prefix = slash < 0 ? '' : rest.slice(slash + 1).replace(/\/+$/, '');
  if (prefix !== '' && prefix.split('/').some((p) => p === '' || p === '.' || p === '..'))
    return { problem: `The prefix "${prefix}" has an empty, "." or ".." part; write it as s3://${bucket}/FOLDER/FOLDER.` };
  return { url: `s3://${bucket}${prefix ? `/${prefix}` : ''}` };
}

/** null when `text` is empty or an http(s) URL; else what is wrong with it. */
export function checkEndpoint(text: string): string | null {
  const t = text.trim();
  if (t === '' || /^https?:\/\/[^/\s]+\S*$/i.test(t)) return null;
  return `The endpoint "${t}" is not an http:// or https:// URL; write it as https://HOST or http://HOST:PORT, or leave it empty for AWS.`;
}

/** The engine's S3Options of the optional fields, or undefined when both are empty (the engine's defaults). */
export function s3Options(endpointUrl: string, profile: string): S3Options | undefined {
  const e = endpointUrl.trim();
  const p = profile.trim();
  if (e === '' && p === '') return undefined;
  return { ...(e ? { endpointUrl: e } : {}), ...(p ? { profile: p } : {}) };
}

/** The facts a review shows of a bucket (each value as code): its URL under `label`, the endpoint and the profile. */
export function s3Facts(url: string, s3: S3Options | undefined, label = 'Bucket'): Array<[string, HTMLElement]> {
  const rows: Array<[string, string]> = [
    [label, url],
    ['Endpoint', s3?.endpointUrl ?? 'AWS (or AWS_ENDPOINT_URL)'],
    ['Profile', s3?.profile ?? 'default (or AWS_PROFILE)'],
  ];
  return rows.map(([k, v]) => [k, h('code', {}, v)]);
}

/** The address of the history view of `dest`, with how to reach it when it is a bucket (#/history?dest=…&endpoint=…&profile=…). */
export function historyHref(dest: string, s3: S3Options | undefined): string {
  const q = new URLSearchParams({ dest });
  if (s3?.endpointUrl) q.set('endpoint', s3.endpointUrl);
  if (s3?.profile) q.set('profile', s3.profile);
  return `#/history?${q.toString()}`;
}
