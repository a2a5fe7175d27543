/**
 * PackOptions from `pack`'s command line: recipients expanded from keys and
 * files, the compression level checked, the self-recipient rule applied.
 */
import { s3Option } from './apply-options.js';
import { parseDuration, parseSize as sizeOf } from '@brickpost/engine/api';
import type { PackOptions } from '@brickpost/engine/api';
import type { Invocation } from './context.js';
import { flag, list, str } from './context.js';
import { usageError } from './failure.js';
import { resolveRecipients, type TrustedKeys } from './recipients.js';

/** Parses `--level`: an integer from 1 to 19. Throws USAGE. */
export function parseLevel(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,2}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 19)) throw usageError(`--level must be an integer from 1 to 19, not ${JSON.stringify(value)}`, 'pack');
  return n;
}

/**
 * The engine's PackOptions for this invocation. Throws USAGE (no recipient
 * at all with --no-self, bad level, recipient neither key nor file) or
 * BAD_KEY (a malformed recipient). `trusted` looks up recipients named by
 * a trusted key's name or key id.
 */
export async function packOptions(inv: Invocation, trusted?: TrustedKeys): Promise<PackOptions> {
  const noSelf = flag(inv, 'no-self');
  const level = parseLevel(str(inv, 'level'));
  const recipients = await resolveRecipients(list(inv, 'recipient'), 'pack', trusted);
  if (noSelf && recipients.length === 0) {
    throw usageError('no recipients: with --no-self, give at least one --recipient', 'pack');
  }
  const opts: PackOptions = { source: inv.positionals[0]!, drives: list(inv, 'to'), recipients, noSelf, ...s3Option(inv) };
  const dataset = str(inv, 'dataset');
  const label = str(inv, 'label');
  if (dataset !== undefined) opts.dataset = dataset;
  if (label !== undefined) opts.label = label;
  if (level !== undefined) opts.level = level;
  const against = str(inv, 'against');
  if (against !== undefined && flag(inv, 'full')) throw usageError('--against and --full do not go together', 'pack');
  if (flag(inv, 'full')) opts.full = true;
  if (flag(inv, 'rehash')) opts.rehash = true;
  if (against !== undefined) opts.against = against;
  const parity = str(inv, 'parity');
  if (parity !== undefined) opts.parity = wholeNumber(parity, '--parity', 255);
  const recovery = str(inv, 'recovery');
  if (recovery !== undefined) opts.recovery = wholeNumber(recovery.replace(/%$/, ''), '--recovery', 100);
  const driveSize = str(inv, 'drive-size');
  if (driveSize !== undefined) opts.driveSize = parseSize(driveSize, '--drive-size');
  if (flag(inv, 'resume')) opts.resume = true;
  const expires = str(inv, 'expires');
  if (expires !== undefined) {
    const seconds = parseDuration(expires);
    if (seconds === undefined || seconds < 1) throw usageError(`--expires must be a duration such as 90d, 12h or 2w, not ${JSON.stringify(expires)}`, 'pack');
    opts.expiresIn = seconds;
  }
  const exclude = list(inv, 'exclude');
  if (exclude.length > 0) opts.exclude = exclude;
  const excludeFrom = list(inv, 'exclude-from');
  if (excludeFrom.length > 0) opts.excludeFrom = excludeFrom;
  if (flag(inv, 'exclude-caches')) opts.excludeCaches = true;
  if (flag(inv, 'strict')) opts.strict = true;
  if (flag(inv, 'portable')) opts.portable = true;
  if (flag(inv, 'allow-changing')) opts.allowChanging = true;
  if (flag(inv, 'snapshot')) opts.snapshot = true;
  return opts;
}

function wholeNumber(v: string, what: string, max: number): number {
  const n = /^[0-9]{1,3}$/.test(v) ? Number(v) : NaN;
  if (!(n <= max)) throw usageError(`${what} must be a whole number from 0 to ${max}, not ${JSON.stringify(v)}`, 'pack');
  return n;
}

/**
 * Parses a size with the engine's units: bytes, SI (500GB, 4TB) or IEC
 * (500GiB) units, or a bare K, M, G, T read as binary (500G). Throws USAGE.
 */
export function parseSize(v: string, what: string): number {
  const n = sizeOf(v);
  if (n === undefined) throw usageError(`${what} must be a size such as 500G, 2TB or 4TiB, not ${JSON.stringify(v)}`, 'pack');
  return n;
}
