/**
 * Identity files in the format age-keygen writes and `age -i` reads: one
 * `AGE-SECRET-KEY-1…` per line, `#` comments and blank lines allowed.
 */

import { BrickpostError, quote } from '../errors.js';
import { identityToRecipient, parseIdentity, type Identity } from './keys.js';

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** RFC 3339 in local time with offset, seconds precision, like Go's time.RFC3339. */
function rfc3339(d: Date): string {
  const offset = -d.getTimezoneOffset();
  const zone = offset === 0 ? 'Z' : (offset > 0 ? '+' : '-') + pad(Math.floor(Math.abs(offset) / 60)) + ':' + pad(Math.abs(offset) % 60);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` + `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${zone}`;
}

/**
 * The text age-keygen writes for `identity`: created and public-key comments,
 * the key line, a trailing newline. Throws BAD_KEY for an invalid identity.
 */
export function formatIdentityFile(identity: string, created: Date): string {
  const recipient = identityToRecipient(identity);
  return `# created: ${rfc3339(created)}\n# public key: ${recipient}\n${identity}\n`;
}

/**
 * Parses an identity file. LF or CRLF line ends; lines may be blank or
 * `#` comments. Throws BAD_KEY (with the line number) on any other line, on
 * an invalid key, or when the file holds no key.
 */
export function parseIdentityFile(text: string, path?: string): Identity[] {
  const out: Identity[] = [];
  const lines = text.split('\n');
  const where = path === undefined ? 'identity file' : quote(path);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    try {
      out.push(parseIdentity(line));
    } catch (cause) {
      throw new BrickpostError('BAD_KEY', `${where} line ${i + 1}: not a valid age identity`, { path, cause });
    }
  }
  if (out.length === 0) throw new BrickpostError('BAD_KEY', `${where} holds no age identity`, { path });
  return out;
}
