import { BrickpostError, quote } from '@brickpost/manifest';
import type { S3Options } from '../api/index.js';

/** A place in object storage: a bucket and a key prefix ('' or ending in '/'). */
export interface S3Place {
  bucket: string;
  /** Keys below it are the dataset's paths; '' (the whole bucket) or ending in '/'. */
  prefix: string;
  /** The URL as given, without a trailing slash, for messages. */
  url: string;
}

/** True when `where` names object storage (`s3://BUCKET[/PREFIX]`) rather than a folder. */
export function isS3Url(where: string): boolean {
  return /^s3:\/\//i.test(where);
}

/**
 * Parses `s3://BUCKET[/PREFIX]`. The prefix is taken as folders: `s3://b/data`
 * and `s3://b/data/` both mean the keys under `data/`.
 * @throws BrickpostError USAGE (no bucket, a bucket name S3 does not allow, an empty or dot component in the prefix)
 */
export function parseS3Url(where: string): S3Place {
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/is.exec(where);
  const bucket = m?.[1] ?? '';
  if (!m || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new BrickpostError('USAGE', `${quote(where)} is not an object storage URL with a valid bucket name`, {
      hint: 'write it as s3://BUCKET/PREFIX (bucket names are 3 to 63 lower-case letters, digits, dots and hyphens)',
    });
  }
  const rest = (m[2] ?? '').replace(/\/+$/, '');
  const parts = rest === '' ? [] : rest.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new BrickpostError('USAGE', `the prefix of ${quote(where)} has an empty, "." or ".." component`, { hint: 'write it as s3://BUCKET/FOLDER/FOLDER' });
  }
  const prefix = parts.length === 0 ? '' : parts.join('/') + '/';
  return { bucket, prefix, url: `s3://${bucket}${prefix ? '/' + prefix.slice(0, -1) : ''}` };
}

/** extract --at reads a destination folder's undo data and writes into a folder: object storage is neither. */
export function noS3At(at: string): BrickpostError {
  return new BrickpostError('USAGE', 'extract --at takes files from a destination folder into a folder, not from or into object storage', {
    hint: `give folders: brickpost extract --at ${at} DEST-DIR PATH --to DIR`,
  });
}

/** A place as a printed command names it: the URL, and the --endpoint-url and --profile it was reached with, so a hint works as printed. */
export function commandPlace(url: string, s3?: S3Options): string {
  const q = (v: string): string => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  return [q(url), ...(s3?.endpointUrl ? ['--endpoint-url', q(s3.endpointUrl)] : []), ...(s3?.profile ? ['--profile', q(s3.profile)] : [])].join(' ');
}
