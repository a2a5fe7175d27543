// writeAtomic (io/sync.ts), the one way the engine replaces a small file:
// the new content or the old, never a torn file, no temporary file left
// behind, and no file handle left open when a step fails.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBrickpostError } from '@brickpost/manifest';
import { writeAtomic } from '../src/io/sync.js';

const root = mkdtempSync(join(tmpdir(), 'bp-atomic-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const openFds = (): number => readdirSync('/proc/self/fd').length;
const noProc = existsSync('/proc/self/fd') ? false : 'no /proc/self/fd to count open files on this system';

test('writes a new file and replaces an old one, with its mode, leaving nothing else', async () => {
  const dir = join(root, 'replace');
  mkdirSync(dir);
  const file = join(dir, 'state.json');
  await writeAtomic(file, 'one\n', 0o600);
  assert.equal(readFileSync(file, 'utf8'), 'one\n');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  await writeAtomic(file, Buffer.from('two\n'), 0o600);
  assert.equal(readFileSync(file, 'utf8'), 'two\n');
  assert.deepEqual(readdirSync(dir), ['state.json']);
});

test('a failed rename removes the temporary file and leaves what was there', async () => {
  const dir = join(root, 'rename');
  const file = join(dir, 'taken');
  mkdirSync(file, { recursive: true });
  writeFileSync(join(file, 'inside'), 'x');
  await assert.rejects(writeAtomic(file, 'text'), (e) => isBrickpostError(e) && e.message.includes(file));
  assert.deepEqual(readdirSync(dir), ['taken']);
  assert.deepEqual(readdirSync(file), ['inside']);
});

test.skipIf(noProc)(`a failed write closes the handle and removes the temporary file${noProc ? ` [skipped: ${noProc}]` : ''}`, async () => {
  const dir = join(root, 'write');
  mkdirSync(dir);
  const file = join(dir, 'file');
  writeFileSync(file, 'old');
  const before = openFds();
  // Not a string or a Buffer: the write step itself fails, after the temporary file was created.
  await assert.rejects(writeAtomic(file, 42 as unknown as Buffer));
  assert.equal(openFds(), before, 'a file handle was left open');
  assert.deepEqual(readdirSync(dir), ['file']);
  assert.equal(readFileSync(file, 'utf8'), 'old');
});
