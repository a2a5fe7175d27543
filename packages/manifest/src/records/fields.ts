import { BrickpostError, quote } from '../errors.js';
import type { Json } from './json.js';

/**
 * Field checks shared by the strict readers of the format's JSON records
 * (manifest records, signature and request files): each throws MALFORMED
 * naming where and which field.
 */

export function malformed(where: string, what: string): never {
  throw new BrickpostError('MALFORMED', `${where}: ${what}`);
}

/** Exactly the fields `allowed`: none unknown, none missing. */
export function checkKeys(o: Record<string, Json>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) malformed(where, `unknown field ${quote(k)}`);
  for (const k of allowed) if (!(k in o)) malformed(where, `missing field ${quote(k)}`);
}

/** An integer in 0..max (strict JSON has integers only). */
export function checkUint(v: Json | undefined, where: string, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) malformed(where, `field ${field} must be an integer in 0..${max}`);
  return v;
}

export function checkStr(v: Json | undefined, where: string, field: string, max = 4096): string {
  if (typeof v !== 'string' || v.length > max) malformed(where, `field ${field} must be a string of at most ${max} characters`);
  return v;
}

export function checkObject(v: Json, where: string): Record<string, Json> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) malformed(where, 'record must be an object');
  return v;
}
