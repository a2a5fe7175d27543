import { S3Client } from '@aws-sdk/client-s3';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { S3Options } from '../api/index.js';
import type { S3Place } from './url.js';

/**
 * A client for object storage, configured the way AWS tools are: credentials
 * from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN), the shared files (~/.aws/credentials, ~/.aws/config,
 * or AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE) under AWS_PROFILE or
 * `profile`, and the other sources of the SDK's default chain; the region
 * from AWS_REGION or AWS_DEFAULT_REGION (us-east-1 when neither is set); the endpoint
 * from `endpointUrl`, else AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL. Any
 * endpoint other than AWS's is addressed path-style (`host/bucket/key`),
 * which every S3-compatible server takes. Credentials stay inside the SDK:
 * nothing here reads, prints or stores them.
 */
export function s3Client(opts: S3Options = {}): S3Client {
  const endpoint = opts.endpointUrl ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+/i.test(endpoint)) {
    throw new BrickpostError('USAGE', `endpoint ${quote(endpoint)} is not an http:// or https:// URL`, { hint: 'give --endpoint-url http://HOST:PORT' });
  }
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  // The SDK's notice about the Node versions of its future releases is not brickpost's to print.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new S3Client({
    ...(endpoint !== undefined ? { endpoint, forcePathStyle: true } : {}),
    ...(opts.profile !== undefined ? { profile: opts.profile } : {}),
    // S3-compatible servers take any region; AWS redirects nothing, so give AWS_REGION for a bucket elsewhere.
    region: region ?? 'us-east-1',
    // One retry policy for every call; a refused credential is not retried.
    maxAttempts: 4,
    // Checksums only where the operation needs one: S3-compatible servers differ in what they take.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * An error of an object storage call as a BrickpostError that says what
 * failed, where, and what to do: a refused credential or signature and a
 * denied request are PERMISSION (exit 5), a missing bucket or key NOT_FOUND
 * (exit 2), a server that cannot be reached IO (exit 5).
 */
export function s3Error(e: unknown, what: string, place: S3Place, key?: string): BrickpostError {
  if (e instanceof BrickpostError) return e;
  const err = e as { name?: string; Code?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const name = err.name ?? err.Code ?? '';
  const status = err.$metadata?.httpStatusCode;
  const where = key !== undefined ? `s3://${place.bucket}/${key}` : place.url;
  const opts = { cause: e, path: where };
  if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(err.message ?? '')) {
    return new BrickpostError('PERMISSION', `${what} ${where}: no credentials for object storage were found`, {
      ...opts,
      hint: 'export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give --profile NAME of ~/.aws/credentials',
    });
  }
  if (
    name === 'InvalidAccessKeyId' ||
    name === 'SignatureDoesNotMatch' ||
    name === 'InvalidToken' ||
    name === 'ExpiredToken' ||
    name === 'InvalidClientTokenId'
  ) {
    return new BrickpostError('PERMISSION', `${what} ${where}: the server refused the credentials (${name})`, {
      ...opts,
      hint: 'check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the profile given by --profile or AWS_PROFILE), and --endpoint-url',
    });
  }
  if (name === 'AccessDenied' || name === 'AllAccessDisabled' || status === 403) {
    return new BrickpostError('PERMISSION', `${what} ${where}: access denied`, {
      ...opts,
      hint: `ask the owner of bucket ${place.bucket} for read and write rights on ${place.url}, or use a profile that has them (--profile NAME)`,
    });
  }
  if (name === 'NoSuchBucket') {
    return new BrickpostError('NOT_FOUND', `${what} ${where}: bucket ${quote(place.bucket)} does not exist`, {
      ...opts,
      hint: `create it first (aws s3 mb s3://${place.bucket}), or check the bucket name and --endpoint-url`,
    });
  }
  if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) {
    return new BrickpostError('NOT_FOUND', `${what} ${where}: no such object`, opts);
  }
  const net = err.code ?? (e as { cause?: { code?: string } }).cause?.code;
  if (net === 'ECONNREFUSED' || net === 'ENOTFOUND' || net === 'ECONNRESET' || net === 'ETIMEDOUT' || net === 'EAI_AGAIN' || name === 'TimeoutError') {
    return new BrickpostError('IO', `${what} ${where}: cannot reach the object storage server (${net ?? name})`, {
      ...opts,
      hint: 'check --endpoint-url (or AWS_ENDPOINT_URL) and that the server is running',
    });
  }
  return new BrickpostError(
    'IO',
    `${what} ${where}: the object storage server answered ${name || 'an error'}${status ? ` (HTTP ${status})` : ''}: ${err.message ?? ''}`.trim(),
    { ...opts, hint: 'run the same command again; if it persists, check the server' },
  );
}
