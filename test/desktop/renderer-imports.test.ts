/**
 * The renderer runs in a browser (Chromium through `brickpost ui`, or
 * Electron's sandboxed renderer) with no module resolution: every import of
 * its compiled files must be a relative path to a file that exists. A value
 * import from `@brickpost/engine/api` (types are erased) would load in the
 * CLI and fail only in the browser, where the page never becomes ready.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'vitest';
import { ROOT } from '../support.js';

test('every import of the compiled renderer is a relative file that exists', () => {
  const web = join(ROOT, 'apps', 'desktop', 'renderer', 'web');
  const files = (readdirSync(web, { recursive: true }) as string[]).filter((f) => f.endsWith('.js'));
  assert.ok(files.length > 20, `the renderer is built (${files.length} files under ${web})`);
  const bad: string[] = [];
  for (const f of files) {
    const code = readFileSync(join(web, f), 'utf8');
    for (const m of code.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[1] ?? m[2]!;
      if (!spec.startsWith('./') && !spec.startsWith('../')) bad.push(`${f}: imports ${spec}`);
      else if (!existsSync(resolve(dirname(join(web, f)), spec))) bad.push(`${f}: imports ${spec}, which is not there`);
    }
  }
  assert.deepEqual(bad, []);
});
