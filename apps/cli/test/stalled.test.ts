/**
 * Node exits 0 once nothing is left to run, even with a command's promise
 * unsettled. A step that waits on work already ended must therefore end the
 * command as a bug (exit 70, an INTERNAL error), never as a success: the
 * `pack-walk` stall point makes pack wait on a promise nothing settles.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brickpost, show } from './transcript.js';

test('a command whose work stops without settling exits 70, not 0', () => {
  const root = mkdtempSync(join(tmpdir(), 'bp-stalled-'));
  const home = join(root, 'home');
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  mkdirSync(src);
  mkdirSync(drive);
  writeFileSync(join(src, 'a.txt'), 'a\n');
  const env = { BRICKPOST_HOME: home };
  assert.equal(brickpost(['keygen'], env).code, 0);

  const text = brickpost(['pack', src, '--to', drive], { ...env, BRICKPOST_FAILPOINT: 'pack-walk' });
  assert.equal(text.code, 70, show(text));
  assert.match(text.stderr, /^brickpost: error: internal error: the pack command stopped before it finished/m, show(text));

  const json = brickpost(['pack', src, '--to', drive, '--json'], { ...env, BRICKPOST_FAILPOINT: 'pack-walk' });
  assert.equal(json.code, 70, show(json));
  const last = JSON.parse(json.stdout.trim().split('\n').pop()!);
  assert.equal(last.type, 'error');
  assert.equal(last.code, 'INTERNAL');
  assert.equal(last.exitCode, 70);

  // Unarmed, the same pack finishes.
  assert.equal(brickpost(['pack', src, '--to', drive], env).code, 0);
});
