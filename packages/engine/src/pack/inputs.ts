/**
 * Step 1 of a pack (pack.ts): the options checked, and the source, the
 * drives, the exclude patterns and the recipients resolved.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { age, BrickpostError, quote } from '@brickpost/manifest';
import type { PackOptions } from '../api/index.js';
import type { Identity } from '../keys/index.js';
import type { Excluder } from '../scan/index.js';
import { planDrives, type DrivePlan } from './drives.js';
import { excluder } from './source-rules.js';
import type { S3Source } from '../s3/source.js';

/** What step 1 found of the options. */
export interface Inputs {
  /** The source folder, its real path; or the s3:// URL of a source in object storage. */
  source: string;
  drives: DrivePlan;
  exclude: Excluder | undefined;
  datasetName: string;
  recipientStrings: string[];
  recipients: Array<ReturnType<typeof age.parseRecipient>>;
}

/**
 * Step 1: checks the options, and resolves the source, the drives, the
 * exclude patterns and the recipients (the publisher's own added unless
 * --no-self). @throws BrickpostError USAGE, NOT_FOUND, and what planDrives throws
 */
export async function checkInputs(opts: PackOptions, me: Identity, s3: S3Source | null): Promise<Inputs> {
  if (opts.against !== undefined && opts.full)
    throw new BrickpostError('USAGE', '--against and --full do not go together', {
      hint: 'a shipment against a signature file is never self-contained; drop one',
    });
  if (opts.expiresIn !== undefined && !(opts.expiresIn >= 1 && opts.expiresIn <= 100 * 366 * 86400)) {
    throw new BrickpostError('USAGE', `an expiry ${String(opts.expiresIn)} seconds after packing is not between 1 second and 100 years`, {
      hint: 'give --expires a duration such as 90d',
    });
  }
  if (s3) await s3.check();
  const srcStat = s3 ? null : await stat(resolve(opts.source)).catch(() => null);
  if (!s3 && !srcStat?.isDirectory()) throw new BrickpostError('NOT_FOUND', `source ${quote(opts.source)} is not a folder`);
  const source = s3 ? s3.place.url : await realpath(resolve(opts.source));
  const drives = await planDrives(opts, source);

  for (const [what, v] of [
    ['label', opts.label],
    ['dataset', opts.dataset],
  ] as const) {
    if (v !== undefined && (v !== v.trim() || /[\u0000-\u001f\u007f]/.test(v) || v.length > 255)) {
      throw new BrickpostError('USAGE', `${what} ${quote(v)} must have no leading or trailing spaces or control characters, and at most 255 characters`);
    }
  }
  const recipientStrings = [...new Set([...(opts.noSelf ? [] : [me.recipient]), ...opts.recipients])];
  if (recipientStrings.length === 0) throw new BrickpostError('USAGE', 'no recipients', { hint: 'give --recipient age1…, or drop --no-self' });
  const recipients = recipientStrings.map((r) => age.parseRecipient(r));
  const exclude = await excluder(opts);
  return { source, drives, exclude, datasetName: opts.dataset ?? (s3 ? s3.name : basename(source)), recipientStrings, recipients };
}
