import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { quote } from '@brickpost/manifest';
import type { S3Options } from '../api/index.js';
import type { Context } from '../context.js';
import { takeLock } from '../io/lock.js';
import { commandPlace, type S3Place } from './url.js';

/**
 * Takes the lock that serialises the jobs of one home on one prefix
 * (ingest, rollback, resume): a lock file in the home named by the endpoint
 * and URL. Jobs from two machines at once are not serialised (README
 * "Object storage").
 */
export function lockPrefix(ctx: Context, place: S3Place, s3: S3Options | undefined, command: string): Promise<() => Promise<void>> {
  const name = createHash('sha256')
    .update(`${s3?.endpointUrl ?? ''} ${place.url}`)
    .digest('hex')
    .slice(0, 16);
  return takeLock(join(ctx.home, `s3-${name}.lock`), {
    what: `${place.url} is in use from home ${quote(ctx.home)} by`,
    command,
    inspect: `brickpost status ${commandPlace(place.url, s3)}`,
  });
}
