/**
 * Recipients for `pack --recipient`: each value is an age X25519 recipient
 * (`age1…`), a file of them, one per line, `#` comments and blank lines
 * ignored, as `age -R` reads them, or else the name or key id of a trusted
 * key whose entry records a recipient.
 */
import { readFile, stat } from 'node:fs/promises';
import { BrickpostError, quote } from '@brickpost/engine/api';
import type { TrustedKey } from '@brickpost/engine/api';
import { usageError } from './failure.js';

/** The trust store, read only when a value needs it. */
export type TrustedKeys = () => Promise<readonly TrustedKey[]>;

const RECIPIENT = /^age1[02-9ac-hj-np-z]+$/;
const MAX_FILE = 1 << 20;

/**
 * Expands `values` into a de-duplicated list of recipients, in order. A file
 * is read before a trusted name of the same spelling is looked up.
 * Throws USAGE for a value that is neither a recipient, a file nor a trusted
 * key with a recipient, BAD_KEY for a line of a file that is not an age1
 * recipient.
 */
export async function resolveRecipients(values: readonly string[], command = 'pack', trusted?: TrustedKeys): Promise<string[]> {
  const out = new Set<string>();
  let keys: readonly TrustedKey[] | undefined;
  for (const v of values) {
    if (RECIPIENT.test(v)) {
      out.add(v);
      continue;
    }
    const st = await stat(v).catch(() => undefined);
    if (st === undefined || !st.isFile()) {
      if (v.startsWith('age1'))
        throw new BrickpostError('BAD_KEY', `malformed age recipient ${quote(v)}`, {
          hint: 'an age recipient is "age1" followed by lower-case letters and digits',
        });
      keys ??= trusted ? await trusted() : [];
      out.add(trustedRecipient(keys, v, command, trusted !== undefined));
      continue;
    }
    if (st.size > MAX_FILE) throw usageError(`recipients file ${quote(v)} is larger than 1 MiB`, command);
    const lines = (await readFile(v, 'utf8')).split(/\r?\n/);
    lines.forEach((raw, i) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      if (!RECIPIENT.test(line)) {
        throw new BrickpostError('BAD_KEY', `recipients file ${quote(v)} line ${i + 1}: not an age X25519 recipient: ${quote(line, 80)}`, {
          hint: 'brickpost encrypts to age X25519 recipients (age1…) only',
          path: v,
        });
      }
      out.add(line);
    });
  }
  return [...out];
}

/** The recipient of the trusted key named `v` (name, or key id in any case). Throws USAGE. */
function trustedRecipient(keys: readonly TrustedKey[], v: string, command: string, looked: boolean): string {
  const k = keys.find((t) => t.name === v) ?? keys.find((t) => t.keyId === v.toUpperCase());
  if (k === undefined) {
    throw usageError(`--recipient ${quote(v)} is neither an age recipient (age1…), a file${looked ? ', nor the name of a trusted key' : ''}`, command);
  }
  if (k.recipient === null) {
    throw new BrickpostError('USAGE', `trusted key ${quote(k.name)} (key id ${k.keyId}) has no recipient recorded`, {
      hint: `record it with 'brickpost trust add ${k.minisignPublicKey} --recipient age1…' (their whoami prints it), or import a receipt of theirs; or give their age1… key itself`,
    });
  }
  return k.recipient;
}
