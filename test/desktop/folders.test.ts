/**
 * The source folder's counts (sourceInfo) on a tree with a name that is not
 * UTF-8: it is walked by its bytes, so such a file is counted like any other
 * instead of failing the wizard's first step.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceInfo } from '@brickpost/desktop/host';
import { tempDir } from '../support.js';

test('sourceInfo counts files whose names are not UTF-8, and does not follow links', async () => {
  const src = join(tempDir('bp-host-folders-'), 'src');
  const odd = Buffer.concat([Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from('-dir')]);
  mkdirSync(Buffer.concat([Buffer.from(`${src}/`), odd]), { recursive: true });
  writeFileSync(Buffer.concat([Buffer.from(`${src}/`), odd, Buffer.from('/caf'), Buffer.from([0xe9])]), 'latin-1\n');
  writeFileSync(join(src, 'plain.txt'), 'plain\n');
  symlinkSync('/', join(src, 'root-link'));
  assert.deepEqual(await sourceInfo(src), { path: src, files: 2, dirs: 1, bytes: 14 });
});
