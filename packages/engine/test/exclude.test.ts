// pack's exclude patterns: restic's and rsync's rules (scan/exclude.ts).
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { compileExcludes, parseExcludeFile } from '../src/scan/exclude.js';

const cases: Array<[pattern: string, path: string, isDir: boolean, excluded: boolean]> = [
  ['*.tmp', 'a.tmp', false, true],
  ['*.tmp', 'deep/er/a.tmp', false, true],
  ['*.tmp', 'a.tmp.keep', false, false],
  ['build/', 'build', true, true],
  ['build/', 'src/build', true, true],
  ['build/', 'build', false, false],
  ['/top', 'top', true, true],
  ['/top', 'sub/top', true, false],
  ['src/*.o', 'src/a.o', false, true],
  ['src/*.o', 'x/src/a.o', false, true],
  ['src/*.o', 'src/deep/a.o', false, false],
  ['src/**/*.o', 'src/deep/er/a.o', false, true],
  ['src/**/*.o', 'src/a.o', false, true],
  ['file?.txt', 'file1.txt', false, true],
  ['file?.txt', 'file10.txt', false, false],
  ['[ab].txt', 'b.txt', false, true],
  ['[!ab].txt', 'b.txt', false, false],
  ['[!ab].txt', 'c.txt', false, true],
  ['\\*literal', '*literal', false, true],
  ['\\*literal', 'xliteral', false, false],
  ['cache', 'a/cache', true, true],
  ['.git', 'repo/.git', true, true],
];

for (const [pattern, path, isDir, excluded] of cases) {
  test(`${JSON.stringify(pattern)} ${excluded ? 'excludes' : 'keeps'} ${isDir ? 'folder' : 'file'} ${JSON.stringify(path)}`, () => {
    assert.equal(compileExcludes([pattern]).excludes(path, isDir), excluded);
  });
}

test('exclude files: one pattern per line, comments and blank lines ignored, CRLF accepted', () => {
  assert.deepEqual(parseExcludeFile('# caches\n*.tmp\r\n\nbuild/\n'), ['*.tmp', 'build/']);
});

test('a pattern that cannot be read is a usage error', () => {
  assert.throws(() => compileExcludes(['[abc']), /USAGE|without its/);
  assert.throws(() => compileExcludes(['trailing\\']), /lone backslash/);
});
