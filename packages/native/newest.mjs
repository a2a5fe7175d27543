import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of the files under DIR, in ms: build.mjs and the loader compare the module's with it. */
export function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}
