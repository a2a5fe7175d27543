/**
 * Loads brickpost's native core: the binding, or null with the reason it is
 * not there (not built: see build-status.txt; BRICKPOST_NATIVE=0; built
 * from older sources than those beside it; a load failure). The engine
 * picks its JavaScript path when it is null.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newest } from './newest.mjs';

const here = dirname(fileURLToPath(import.meta.url));
let loaded = null;

/** The native binding and why it is missing: { binding, reason, disabled }. */
export function loadNative() {
  if (loaded) return loaded;
  if (process.env.BRICKPOST_NATIVE === '0') return (loaded = { binding: null, reason: 'BRICKPOST_NATIVE=0', disabled: true });
  const file = join(here, 'brickpost-native.node');
  if (!existsSync(file)) {
    const status = join(here, 'build-status.txt');
    const why = existsSync(status) ? readFileSync(status, 'utf8').trim() : 'not built';
    return (loaded = { binding: null, reason: why, disabled: false });
  }
  // A module built before the sources changed may lack what the engine calls: it is not used.
  if (existsSync(join(here, 'src')) && newest(join(here, 'src')) > statSync(file).mtimeMs) {
    return (loaded = { binding: null, reason: `${file} is older than its sources; rebuild it: npm run build -w @brickpost/native`, disabled: false });
  }
  try {
    return (loaded = { binding: createRequire(import.meta.url)(file), reason: null, disabled: false });
  } catch (e) {
    return (loaded = { binding: null, reason: `cannot load ${file}: ${e.message}`, disabled: false });
  }
}

/**
 * Splits a native error's reason into its parts: the BrickpostError code
 * (or `ERRNO:<name>` for a file-system error), the message, the hint, and
 * for a failure at one item of a batch its index `at` (else null).
 * Errors that did not come from the native core give code null.
 */
export function nativeErrorParts(e) {
  const msg = e instanceof Error ? e.message : String(e);
  const parts = msg.split('\u0001');
  if (parts.length === 4 && /^[0-9]+$/.test(parts[3])) return { code: parts[0], message: parts[1], hint: parts[2], at: Number(parts[3]) };
  if (parts.length !== 3) return { code: null, message: msg, hint: '', at: null };
  return { code: parts[0], message: parts[1], hint: parts[2], at: null };
}
