/**
 * Payload-Oxum (RFC 8493 §2.2.2): "OctetCount.StreamCount", the total size
 * and number of payload files, for a quick completeness check.
 */

import { BrickpostError, quote } from '../errors.js';

/** The Payload-Oxum value for `bytes` in `count` files. Throws USAGE on negative or unsafe integers. */
export function payloadOxum(bytes: number, count: number): string {
  if (!Number.isSafeInteger(bytes) || bytes < 0 || !Number.isSafeInteger(count) || count < 0) {
    throw new BrickpostError('USAGE', `payload oxum needs non-negative integers, got ${bytes} and ${count}`);
  }
  return `${bytes}.${count}`;
}

/**
 * Reads a Payload-Oxum value. Strict: two decimal numbers without sign,
 * spaces or leading zeros, each a safe integer. Throws MALFORMED.
 */
export function parsePayloadOxum(value: string): { bytes: number; count: number } {
  const m = /^(0|[1-9][0-9]{0,15})\.(0|[1-9][0-9]{0,15})$/.exec(value);
  const bytes = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || !Number.isSafeInteger(bytes) || !Number.isSafeInteger(count)) {
    throw new BrickpostError('MALFORMED', `malformed Payload-Oxum ${quote(value)}`, { path: 'bag-info.txt' });
  }
  return { bytes, count };
}
