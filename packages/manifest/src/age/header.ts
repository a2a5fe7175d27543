/**
 * The age header (age spec §header): version line, recipient stanzas, MAC.
 * Parsing is strict and bounded so hostile input cannot make us buffer or
 * loop without limit.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { hkdf } from './aead.js';
import { decodeBase64, encodeBase64 } from './base64.js';

/** One recipient stanza: its type (first argument), further arguments, body. */
export interface Stanza {
  type: string;
  args: string[];
  body: Buffer;
}

/** A parsed header; `headerLength` counts bytes up to and including the MAC line's LF. */
export interface ParsedHeader {
  stanzas: Stanza[];
  mac: Buffer;
  headerLength: number;
}

/** Largest header accepted, in bytes. */
export const MAX_HEADER_BYTES = 1 << 20;
/** Most stanzas accepted in one header. */
export const MAX_STANZAS = 1024;

const VERSION_LINE = 'age-encryption.org/v1';
/** "--- " + 43 base64 characters + LF. */
const MAC_LINE_BYTES = 48;
const BODY_COLUMNS = 64;

function malformed(what: string): BrickpostError {
  return new BrickpostError('MALFORMED', `age header ${what}`);
}

function isArgument(a: string): boolean {
  if (a.length === 0) return false;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i);
    if (c < 33 || c > 126) return false;
  }
  return true;
}

/**
 * Parses the header at the start of `buf`, which must hold at least the whole
 * header (bytes after it are ignored). Throws TRUNCATED when `buf` ends
 * inside the header, LIMIT_EXCEEDED past MAX_HEADER_BYTES or MAX_STANZAS,
 * UNSUPPORTED_VERSION for another age version, and MALFORMED otherwise.
 */
export function parseHeader(buf: Buffer): ParsedHeader {
  let pos = 0;
  const nextLine = (): string => {
    const end = buf.indexOf(10, pos);
    if (end < 0 || end >= MAX_HEADER_BYTES) {
      if (buf.length >= MAX_HEADER_BYTES) {
        throw new BrickpostError('LIMIT_EXCEEDED', `age header is larger than ${MAX_HEADER_BYTES} bytes`);
      }
      throw new BrickpostError('TRUNCATED', `age header ends early, after ${buf.length} bytes`);
    }
    const line = buf.toString('latin1', pos, end);
    pos = end + 1;
    return line;
  };

  const version = nextLine();
  if (version !== VERSION_LINE) {
    if (version.startsWith('age-encryption.org/')) {
      throw new BrickpostError('UNSUPPORTED_VERSION', `age header has unsupported version ${quote(version)}`);
    }
    throw malformed(`has a bad version line ${quote(version)}`);
  }
  const stanzas: Stanza[] = [];
  for (;;) {
    const line = nextLine();
    if (line.startsWith('---')) {
      const mac = line.startsWith('--- ') && line.length === MAC_LINE_BYTES - 1 ? decodeBase64(line.slice(4)) : null;
      if (mac === null || mac.length !== 32) throw malformed(`has a malformed mac line ${quote(line)}`);
      if (stanzas.length === 0) throw malformed('has no recipient stanzas');
      return { stanzas, mac, headerLength: pos };
    }
    const parts = line.split(' ');
    if (parts[0] !== '->' || parts.length < 2 || !parts.slice(1).every(isArgument)) {
      throw malformed(`has an unexpected line ${quote(line)}`);
    }
    if (stanzas.length === MAX_STANZAS) {
      throw new BrickpostError('LIMIT_EXCEEDED', `age header has more than ${MAX_STANZAS} stanzas`);
    }
    const body: Buffer[] = [];
    for (;;) {
      const text = nextLine();
      const bytes = text.length <= BODY_COLUMNS ? decodeBase64(text) : null;
      if (bytes === null) throw malformed(`has a malformed stanza body line ${quote(text)}`);
      body.push(bytes);
      if (text.length < BODY_COLUMNS) break;
    }
    stanzas.push({ type: parts[1]!, args: parts.slice(2), body: Buffer.concat(body) });
  }
}

/** Encodes the header up to and including the `---` mark: the MAC's input. */
export function encodeHeaderWithoutMac(stanzas: Stanza[]): Buffer {
  let text = VERSION_LINE + '\n';
  for (const s of stanzas) {
    text += ['->', s.type, ...s.args].join(' ') + '\n';
    const b64 = encodeBase64(s.body);
    // Every body ends with a line shorter than 64 columns, possibly empty.
    for (let i = 0; i <= b64.length; i += BODY_COLUMNS) text += b64.slice(i, i + BODY_COLUMNS) + '\n';
  }
  return Buffer.from(text + '---', 'latin1');
}

/** HMAC-SHA-256 of the header under HKDF(file key, "", "header") (age spec §"Header MAC"). */
export function headerMac(fileKey: Buffer, headerWithoutMac: Uint8Array): Buffer {
  return createHmac('sha256', hkdf(fileKey, Buffer.alloc(0), 'header'))
    .update(headerWithoutMac)
    .digest();
}

/** Encodes a complete header: stanzas, then the MAC line and its LF. */
export function encodeHeader(stanzas: Stanza[], fileKey: Buffer): Buffer {
  const head = encodeHeaderWithoutMac(stanzas);
  return Buffer.concat([head, Buffer.from(' ' + encodeBase64(headerMac(fileKey, head)) + '\n', 'latin1')]);
}

/**
 * Checks the MAC of a parsed header against `headerBytes` (the buffer it was
 * parsed from). Throws HEADER_MAC_MISMATCH.
 */
export function verifyHeaderMac(parsed: ParsedHeader, headerBytes: Buffer, fileKey: Buffer, path?: string): void {
  const covered = headerBytes.subarray(0, parsed.headerLength - MAC_LINE_BYTES + 3);
  if (!timingSafeEqual(headerMac(fileKey, covered), parsed.mac)) {
    throw new BrickpostError('HEADER_MAC_MISMATCH', `age header mac does not match${path === undefined ? '' : ' in ' + quote(path)}`, {
      path,
      hint: 'the header was modified after encryption',
    });
  }
}
