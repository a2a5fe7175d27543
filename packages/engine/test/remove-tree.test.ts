// Removing a tree in bounded memory (io/remove-tree.ts): everything under the folder goes, across batches and levels,
// names that are not UTF-8 included; a link goes, never what it points to; nothing there is not an error; an entry that
// cannot be removed is.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBytes } from '@brickpost/manifest';
import { removeTree } from '../src/io/remove-tree.js';

const root = mkdtempSync(join(tmpdir(), 'bp-remove-tree-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('a tree of several levels, folders of more entries than a batch, odd names and links to outside goes whole', async () => {
  const outside = join(root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'keep'), 'kept');
  const tree = join(root, 'tree');
  // 700 files and 300 folders in one folder: several batches of 256, folders and files mixed in each.
  for (let i = 0; i < 300; i++) mkdirSync(join(tree, 'wide', `d${i}`, 'deeper', 'deepest'), { recursive: true });
  for (let i = 0; i < 700; i++) writeFileSync(join(tree, 'wide', `f${i}`), String(i));
  for (let i = 0; i < 300; i += 7) writeFileSync(join(tree, 'wide', `d${i}`, 'deeper', 'deepest', 'leaf'), 'x');
  writeFileSync(Buffer.concat([Buffer.from(`${tree}/`), Buffer.from([0x6e, 0xff, 0x2e, 0x62])]), 'not utf-8');
  mkdirSync(Buffer.concat([Buffer.from(`${tree}/`), Buffer.from([0xfe, 0x64])]));
  writeFileSync(Buffer.concat([Buffer.from(`${tree}/`), Buffer.from([0xfe, 0x64, 0x2f, 0x78])]), 'inside a folder not utf-8');
  symlinkSync(outside, join(tree, 'to-outside'));
  symlinkSync(join(outside, 'keep'), join(tree, 'wide', 'd3', 'to-keep'));
  symlinkSync('nowhere', join(tree, 'dangling'));
  assert.ok(readdirSync(join(tree, 'wide')).length > 512);

  await removeTree(tree);
  assert.equal(existsSync(tree), false);
  assert.deepEqual(readdirSync(outside), ['keep']);
});

test('a path that is not there is left alone; a file or a link is removed itself', async () => {
  await removeTree(join(root, 'never-made'));
  const file = join(root, 'file');
  writeFileSync(file, 'x');
  await removeTree(file);
  assert.equal(existsSync(file), false);
  const dir = join(root, 'dir');
  mkdirSync(dir);
  writeFileSync(join(dir, 'inside'), 'x');
  const link = join(root, 'link');
  symlinkSync(dir, link);
  await removeTree(link);
  assert.equal(existsSync(link), false);
  assert.deepEqual(readdirSync(dir), ['inside']);
  // An escaped name (bytes that are not UTF-8) is removed by its bytes.
  const odd = Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0xc3, 0x28])]);
  mkdirSync(odd);
  writeFileSync(Buffer.concat([odd, Buffer.from('/f')]), 'x');
  await removeTree(fromBytes(odd));
  assert.equal(existsSync(odd), false);
});

test('an entry that cannot be removed fails the removal with its error, rather than being skipped', async () => {
  const file = join(root, 'plain');
  writeFileSync(file, 'x');
  // A path below a file: ENOTDIR, not "not there".
  await assert.rejects(removeTree(join(file, 'below')), (e: NodeJS.ErrnoException) => e.code === 'ENOTDIR');
  assert.ok(existsSync(file));
});
