import { age, BrickpostError, minisign, quote } from '@brickpost/manifest';

/**
 * A contact: the public keys of a party, pasted in one go to trust them. It
 * is any text holding exactly one minisign public key (`RW…`) and at most
 * one age recipient (`age1…`) as words of their own: a bare key line, a
 * minisign .pub file, a .pub file with a recipient line added, or what
 * `brickpost whoami` prints (whose `name` line then suggests a name).
 */
export interface Contact {
  /** The minisign public key line, `RW…`. */
  publicKey: string;
  /** The age recipient, or null when the text holds none. */
  recipient: string | null;
  /** The name of a whoami-style `name  VALUE` line, or null. */
  name: string | null;
}

/** The longest contact text read (a post-quantum recipient is about 2,000 characters). */
export const MAX_CONTACT_TEXT = 16 * 1024;

const KEY_WORD = /^RW[A-Za-z0-9+/]{54}$/;
const EDGE = /^["'`(<[{,;:]+|["'`)>\]},;:.]+$/g;
const SECRET = /AGE-SECRET-KEY-|minisign (encrypted )?secret key/i;

/**
 * Reads a contact from pasted text.
 * @throws BrickpostError BAD_KEY (no key, several keys or recipients, a malformed recipient, a secret key, too long)
 */
export function parseContact(text: string): Contact {
  if (text.length > MAX_CONTACT_TEXT) {
    throw new BrickpostError('BAD_KEY', `the pasted key text is too long (${text.length} characters, at most ${MAX_CONTACT_TEXT})`, {
      hint: "paste the minisign public key (RW…), or what 'brickpost whoami' prints",
    });
  }
  if (SECRET.test(text)) {
    throw new BrickpostError('BAD_KEY', 'the pasted text holds a secret key', {
      hint: "secret keys never leave their home; paste what 'brickpost whoami' prints, which holds public keys only",
    });
  }
  const whole = wholeKey(text);
  if (whole !== null) return { publicKey: whole, recipient: null, name: null };

  const keys = new Set<string>();
  const recipients = new Set<string>();
  for (const raw of text.split(/\s+/)) {
    const word = raw.replace(EDGE, '');
    if (KEY_WORD.test(word)) keys.add(minisign.parsePublicKey(word).line);
    else if (word.startsWith('age1')) {
      age.parseRecipient(word);
      recipients.add(word);
    }
  }
  if (keys.size === 0) {
    throw new BrickpostError('BAD_KEY', `no minisign public key (RW…) in ${quote(text.trim(), 80)}`, {
      hint: "paste the line starting with RW, the .pub file, or what 'brickpost whoami' prints",
    });
  }
  if (keys.size > 1) {
    const ids = [...keys].map((k) => minisign.parsePublicKey(k).keyIdHex).join(', ');
    throw new BrickpostError('BAD_KEY', `the pasted text holds ${keys.size} different minisign public keys (key ids ${ids})`, {
      hint: 'paste the keys of one party at a time',
    });
  }
  if (recipients.size > 1) {
    throw new BrickpostError('BAD_KEY', `the pasted text holds ${recipients.size} different age recipients`, { hint: 'paste the keys of one party at a time' });
  }
  const publicKey = [...keys][0]!;
  const named = /minisign public key ([0-9A-Fa-f]{1,16})\b/.exec(text)?.[1];
  const keyIdHex = minisign.parsePublicKey(publicKey).keyIdHex;
  if (named !== undefined && BigInt(`0x${named}`) !== BigInt(`0x${keyIdHex}`)) {
    throw new BrickpostError('BAD_KEY', `the pasted .pub comment says key id ${named} but the text holds key ${keyIdHex}`);
  }
  const name = /^[ \t]*name[ \t]+(\S.*?)[ \t]*$/m.exec(text)?.[1] ?? null;
  return { publicKey, recipient: [...recipients][0] ?? null, name };
}

/**
 * A checked age recipient (`age1…`, or `age1pq1…`), as given.
 * @throws BrickpostError BAD_KEY
 */
export function checkRecipient(text: string): string {
  if (!text.startsWith('age1')) {
    throw new BrickpostError('BAD_KEY', `not an age recipient: ${quote(text, 80)}`, {
      hint: 'an age recipient starts with age1, as brickpost whoami prints it',
    });
  }
  age.parseRecipient(text);
  return text;
}

/** The key line when the whole text is a key line or a .pub file, else null. */
function wholeKey(text: string): string | null {
  try {
    return minisign.parsePublicKey(text.trim()).line;
  } catch {
    return null;
  }
}
