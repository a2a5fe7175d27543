/**
 * Wrapping a fresh file key to recipients into a header, and unwrapping it
 * from a parsed header with identities (age spec §"File key", §header).
 */

import { randomBytes } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { unwrapHybrid, wrapHybrid } from './hybrid.js';
import { encodeHeader, verifyHeaderMac, type ParsedHeader, type Stanza } from './header.js';
import type { Identity, Recipient } from './keys.js';
import { unwrapScrypt, wrapScrypt } from './scrypt.js';
import { unwrapX25519, wrapX25519 } from './x25519.js';

/** File key length in bytes. */
export const FILE_KEY_SIZE = 16;

/**
 * Generates a file key and wraps it to every recipient. Returns the encoded
 * header (MAC line and final LF included) and the file key. Throws USAGE
 * with no recipients or a passphrase mixed with other recipients.
 */
export function createHeader(recipients: Recipient[]): { header: Buffer; fileKey: Buffer } {
  if (recipients.length === 0) throw new BrickpostError('USAGE', 'age encryption needs at least one recipient');
  if (recipients.length > 1 && recipients.some((r) => r.type === 'scrypt')) {
    throw new BrickpostError('USAGE', 'a passphrase must be the only age recipient');
  }
  const fileKey = randomBytes(FILE_KEY_SIZE);
  const stanzas: Stanza[] = recipients.map((r) => {
    switch (r.type) {
      case 'x25519':
        return wrapX25519(fileKey, r.publicKey);
      case 'mlkem768x25519':
        return wrapHybrid(fileKey, r.publicKey);
      case 'scrypt':
        return wrapScrypt(fileKey, r.passphrase, r.logN);
    }
  });
  return { header: encodeHeader(stanzas, fileKey), fileKey };
}

function unwrapOne(stanzas: Stanza[], identity: Identity): Buffer | null {
  switch (identity.type) {
    case 'x25519':
      return unwrapX25519(stanzas, identity.secret, identity.publicKey);
    case 'mlkem768x25519':
      return unwrapHybrid(stanzas, identity.key);
    case 'scrypt':
      return unwrapScrypt(stanzas, identity.passphrase);
  }
}

/**
 * Unwraps the file key of `parsed` (parsed from `headerBytes`) with the first
 * identity that matches, then verifies the header MAC. Throws MALFORMED when
 * a stanza breaks the spec's rules (an scrypt stanza not alone, bad
 * arguments, low-order share…), NO_MATCHING_KEY when no identity matches,
 * HEADER_MAC_MISMATCH when the MAC is wrong.
 */
export function unwrapFileKey(parsed: ParsedHeader, headerBytes: Buffer, identities: Identity[], path?: string): Buffer {
  const where = path === undefined ? 'the age file' : quote(path);
  if (parsed.stanzas.length > 1 && parsed.stanzas.some((s) => s.type === 'scrypt')) {
    throw new BrickpostError('MALFORMED', `age header of ${where}: an scrypt stanza must be the only stanza`, { path });
  }
  for (const identity of identities) {
    const fileKey = unwrapOne(parsed.stanzas, identity);
    if (fileKey === null) continue;
    if (fileKey.length !== FILE_KEY_SIZE) {
      throw new BrickpostError('MALFORMED', `age header of ${where}: file key is ${fileKey.length} bytes`, { path });
    }
    verifyHeaderMac(parsed, headerBytes, fileKey, path);
    return fileKey;
  }
  const types = [...new Set(parsed.stanzas.map((s) => s.type))].map((t) => quote(t, 40)).join(', ');
  throw new BrickpostError('NO_MATCHING_KEY', `no identity matches any recipient of ${where} (stanza types ${types})`, {
    path,
    hint: 'decrypt with the identity file of one of the recipients, or the right passphrase',
  });
}
