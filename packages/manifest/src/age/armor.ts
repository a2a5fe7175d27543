/**
 * ASCII armor (age spec §"ASCII armor"): strict PEM (RFC 7468 §3) with label
 * "AGE ENCRYPTED FILE", 64-column canonical padded base64. Whitespace is
 * allowed only before and after the block; lines may end in LF or CRLF.
 */

import { BrickpostError, quote } from '../errors.js';

const BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----';
const END = '-----END AGE ENCRYPTED FILE-----';
const COLUMNS = 64;
const OUTSIDE_SPACE = /^[ \t\r\n\v\f]+|[ \t\r\n\v\f]+$/g;
const PADDED_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function bad(what: string): BrickpostError {
  return new BrickpostError('MALFORMED', `age armor ${what}`);
}

/** True when `input` starts, after optional whitespace, with the armor's BEGIN line. */
export function isArmored(input: Buffer): boolean {
  let i = 0;
  while (i < input.length && (input[i] === 32 || (input[i]! >= 9 && input[i]! <= 13))) i++;
  return input.toString('latin1', i, i + BEGIN.length) === BEGIN;
}

/** Encodes an age file in ASCII armor, with a final newline. */
export function encodeArmor(file: Buffer): string {
  const b64 = file.toString('base64');
  let out = BEGIN + '\n';
  for (let i = 0; i < b64.length; i += COLUMNS) out += b64.slice(i, i + COLUMNS) + '\n';
  return out + END + '\n';
}

/**
 * Decodes an armored age file. Throws MALFORMED ("age armor …") for a wrong
 * label, a header line, a short, long or whitespace-bearing line, bad or
 * non-canonical base64, or data after the END line.
 */
export function decodeArmor(input: Buffer): Buffer {
  const lines = input.toString('latin1').replace(OUTSIDE_SPACE, '').split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    if (line.endsWith('\r')) lines[i] = line.slice(0, -1);
  }
  if (lines[0] !== BEGIN) throw bad(`does not start with ${quote(BEGIN)}`);
  if (lines[lines.length - 1] !== END || lines.length < 2) throw bad(`does not end with ${quote(END)}`);
  const body = lines.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    const last = i === body.length - 1;
    if (last ? line.length === 0 || line.length > COLUMNS || line.length % 4 !== 0 : line.length !== COLUMNS) {
      throw bad(`line ${i + 2} has ${line.length} columns`);
    }
    if (!PADDED_BASE64.test(line) || (!last && line.includes('='))) {
      throw bad(`line ${i + 2} is not base64: ${quote(line, 80)}`);
    }
  }
  const b64 = body.join('');
  const file = Buffer.from(b64, 'base64');
  if (file.toString('base64') !== b64) throw bad('base64 is not canonical');
  return file;
}
