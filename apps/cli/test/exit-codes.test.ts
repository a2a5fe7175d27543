import { test } from 'vitest';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { EXIT_CODES } from '@brickpost/engine/api';
import { EXIT_TABLE, INTERNAL_EXIT_CODE, exitCodeOf, mostSerious, renderExitCodes } from '../src/exit-codes.js';

test('the table has one row per category, plus internal, in numeric order', () => {
  for (const [name, code] of Object.entries(EXIT_CODES)) {
    const row = EXIT_TABLE.find((r) => r.name === name);
    assert.ok(row, `no row for ${name}`);
    assert.equal(row.code, code);
  }
  assert.equal(EXIT_TABLE.find((r) => r.name === 'internal')?.code, INTERNAL_EXIT_CODE);
  assert.equal(EXIT_TABLE.length, Object.keys(EXIT_CODES).length + 1);
  const codes = EXIT_TABLE.map((r) => r.code);
  assert.deepEqual(
    codes,
    [...codes].sort((a, b) => a - b),
  );
});

test('renders as text and markdown', () => {
  assert.match(renderExitCodes('text'), /^ {4}0 {2}ok {11} success/m);
  assert.match(renderExitCodes('text'), /^ {2}130 {2}interrupted {3}interrupted/m);
  assert.match(renderExitCodes('markdown'), /^\| 3 \| authenticity \| /m);
});

test('most serious problem: authenticity > unsafe > integrity', () => {
  assert.equal(mostSerious(['FIXITY_MISMATCH', 'UNSAFE_PATH', 'SIGNATURE_INVALID']), 'SIGNATURE_INVALID');
  assert.equal(mostSerious(['FIXITY_MISMATCH', 'UNSAFE_PATH']), 'UNSAFE_PATH');
  assert.equal(mostSerious(['FILE_MISSING']), 'FILE_MISSING');
  assert.equal(mostSerious([]), undefined);
  assert.equal(exitCodeOf('UNTRUSTED_PUBLISHER'), 3);
  assert.equal(exitCodeOf('UNSAFE_ENTRY'), 4);
  assert.equal(exitCodeOf('CHUNK_MISMATCH'), 1);
  assert.equal(exitCodeOf('SOMETHING_NEW'), 1);
  assert.equal(exitCodeOf('LOCKED'), 7);
});

// The repository's README, from apps/cli/test: a missing README fails the test.
const readme = new URL('../../../README.md', import.meta.url);

test('README exit-code table matches', () => {
  const text = readFileSync(readme, 'utf8');
  assert.match(text, /^### Exit codes$/m, `${readme.pathname} has no exit-code section`);
  assert.ok(text.includes(renderExitCodes('markdown')), `${readme.pathname} must contain:\n${renderExitCodes('markdown')}`);
});
