/**
 * Checks of the arguments a renderer sends. They cross a trust boundary (a
 * page, over IPC or HTTP), so each method takes only a plain object with the
 * fields it names, of the types it names; anything else is a USAGE error.
 */
import { BrickpostError, quote, type S3Options } from '@brickpost/engine/api';
import { JOB_ID_PATTERN } from '../shared/methods.js';

/** A plain object argument. */
export type Opts = Record<string, unknown>;

/**
 * The argument at `index` as a plain object (`{}` when absent and optional).
 * @throws BrickpostError USAGE
 */
export function objectArg(method: string, args: unknown[], index = 0, optional = false): Opts {
  const v = args[index];
  if (v === undefined && optional) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new BrickpostError(
      'USAGE',
      `${method}: argument ${index + 1} must be an object, not ${quote(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)}`,
    );
  }
  return v as Opts;
}

/** A string field (required unless `optional`). @throws BrickpostError USAGE */
export function stringField(method: string, o: Opts, key: string, optional: true): string | undefined;
export function stringField(method: string, o: Opts, key: string, optional?: false): string;
export function stringField(method: string, o: Opts, key: string, optional = false): string | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v === '') throw new BrickpostError('USAGE', `${method}: ${key} must be a non-empty string`, { hint: `give ${key}` });
  if (v.includes('\0')) throw new BrickpostError('USAGE', `${method}: ${key} ${quote(v)} contains a NUL character`);
  return v;
}

/** A list of strings (each checked as stringField does; empty when absent). @throws BrickpostError USAGE */
export function stringListField(method: string, o: Opts, key: string): string[] {
  const v = o[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new BrickpostError('USAGE', `${method}: ${key} must be a list of strings`);
  return (v as unknown[]).map((x, i) => stringField(method, { [`${key}[${i}]`]: x }, `${key}[${i}]`));
}

/** A boolean field, false when absent. @throws BrickpostError USAGE */
export function boolField(method: string, o: Opts, key: string): boolean {
  const v = o[key];
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new BrickpostError('USAGE', `${method}: ${key} must be true or false`);
  return v;
}

/**
 * A job id the renderer chose: 1 to 64 letters, digits, - or _.
 * @throws BrickpostError USAGE
 */
export function jobIdArg(jobId: unknown): string {
  if (typeof jobId !== 'string' || !JOB_ID_PATTERN.test(jobId))
    throw new BrickpostError('USAGE', `job id ${quote(String(jobId))} is not valid`, { hint: 'use 1 to 64 letters, digits, - or _' });
  return jobId;
}

/**
 * The `s3` field (how to reach a bucket: endpointUrl, profile; each a
 * string, nothing else), or undefined when absent. Credentials never travel
 * here: the engine takes them from the environment and AWS's shared files.
 * @throws BrickpostError USAGE
 */
export function s3Field(method: string, o: Opts): S3Options | undefined {
  const v = o['s3'];
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BrickpostError('USAGE', `${method}: s3 must be an object`);
  const s3 = v as Opts;
  const other = Object.keys(s3).find((k) => k !== 'endpointUrl' && k !== 'profile');
  if (other !== undefined)
    throw new BrickpostError('USAGE', `${method}: s3 takes endpointUrl and profile only, not ${quote(other)}`, {
      hint: 'credentials come from the environment or ~/.aws files, never from the app',
    });
  const endpointUrl = stringField(method, s3, 'endpointUrl', true);
  const profile = stringField(method, s3, 'profile', true);
  return { ...(endpointUrl !== undefined ? { endpointUrl } : {}), ...(profile !== undefined ? { profile } : {}) };
}
