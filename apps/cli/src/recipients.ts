/**
 * Recipients for `pack --recipient`: each value is an age X25519 recipient
 * (`age1…`) or a file of them, one per line, `#` comments and blank lines
 * ignored, as `age -R` reads them.
 */
import { readFile, stat } from 'node:fs/promises';
import { BrickpostError, quote } from '@brickpost/engine/api';
import { usageError } from './failure.js';

const RECIPIENT = /^age1[02-9ac-hj-np-z]+$/;
const MAX_FILE = 1 << 20;

/**
 * Expands `values` into a de-duplicated list of recipients, in order.
 * Throws USAGE for a value that is neither a recipient nor a file, BAD_KEY
 * for a line of a file that is not an age1 recipient.
 */
export async function resolveRecipients(values: readonly string[], command = 'pack'): Promise<string[]> {
  const out = new Set<string>();
  for (const v of values) {
    if (RECIPIENT.test(v)) {
      out.add(v);
      continue;
    }
    const st = await stat(v).catch(() => undefined);
    if (st === undefined || !st.isFile()) {
      throw v.startsWith('age1')
        ? new BrickpostError('BAD_KEY', `malformed age recipient ${quote(v)}`, { hint: 'an age recipient is "age1" followed by lower-case letters and digits' })
        : usageError(`--recipient ${quote(v)} is neither an age recipient (age1…) nor a file`, command);
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
