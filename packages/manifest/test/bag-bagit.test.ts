import { test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  BAGIT_TXT,
  parseBagitTxt,
  formatBagInfo,
  parseBagInfo,
  payloadOxum,
  parsePayloadOxum,
  formatManifest,
  parseManifest,
  type ManifestEntry,
} from '../src/bag/index.js';

const which = spawnSync('sh', ['-c', 'command -v bagit.py'], { encoding: 'utf8' });
const bagitPy = which.status === 0 ? which.stdout.trim() : '';
const skip = bagitPy === '' ? 'bagit.py not installed' : false;

function bagit(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(bagitPy, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

async function put(root: string, rel: string, content: Buffer | string): Promise<ManifestEntry> {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), content);
  return { path: rel, digest: sha256(content) };
}

/** Builds a bag with our formatters only; returns its directory. */
async function buildBag(root: string): Promise<void> {
  const payload: Array<[string, Buffer | string]> = [
    ['data/hello.txt', 'hello\n'],
    ['data/packs/0001.pack', Buffer.alloc(70_000, 3)],
    ['data/packs/empty', ''],
    ['data/names/é ü with spaces.txt', 'unicode'],
  ];
  const entries: ManifestEntry[] = [];
  let bytes = 0;
  for (const [rel, content] of payload) {
    entries.push(await put(root, rel, content));
    bytes += Buffer.byteLength(content);
  }
  const tags: ManifestEntry[] = [];
  tags.push(await put(root, 'bagit.txt', BAGIT_TXT));
  tags.push(
    await put(
      root,
      'bag-info.txt',
      formatBagInfo([
        ['Source-Organization', 'Example Lab'],
        ['Bagging-Date', '2025-01-31'],
        ['Payload-Oxum', payloadOxum(bytes, payload.length)],
        ['Bag-Group-Identifier', 'ds-7'],
        ['Bag-Count', '1 of 2'],
        ['External-Description', 'a long description\nthat continues on a second line'],
      ]),
    ),
  );
  tags.push(await put(root, 'manifest-sha256.txt', formatManifest(entries)));
  tags.push(await put(root, 'README.txt', 'read me\n'));
  tags.push(await put(root, 'meta/FORMAT.md', '# format\n'));
  await put(root, 'tagmanifest-sha256.txt', formatManifest(tags));
  await put(root, 'tagmanifest-sha256.txt.minisig', 'not listed in any manifest\n');
}

async function withBag(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'brickpost-bag-'));
  try {
    await buildBag(dir);
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('our parsers read back the bag we wrote', () =>
  withBag(async (dir) => {
    assert.deepEqual(parseBagitTxt(await readFile(join(dir, 'bagit.txt'))), { version: '1.0', encoding: 'UTF-8' });
    const info = parseBagInfo(await readFile(join(dir, 'bag-info.txt')));
    assert.deepEqual(parsePayloadOxum(info.find(([k]) => k === 'Payload-Oxum')![1]), { bytes: 70_013, count: 4 });
    assert.equal(info.find(([k]) => k === 'External-Description')![1], 'a long description\nthat continues on a second line');
    const payload = parseManifest(await readFile(join(dir, 'manifest-sha256.txt')), { maxEntries: 10, payload: true });
    for (const e of payload) assert.equal(sha256(await readFile(join(dir, e.path))), e.digest, e.path);
    const tags = parseManifest(await readFile(join(dir, 'tagmanifest-sha256.txt')), { maxEntries: 10, payload: false });
    assert.deepEqual(
      tags.map((e) => e.path),
      ['bagit.txt', 'bag-info.txt', 'manifest-sha256.txt', 'README.txt', 'meta/FORMAT.md'],
    );
  }));

test.skipIf(skip)(`bagit.py --validate accepts our bag, with and without --fast${skip ? ` [skipped: ${skip}]` : ''}`, () =>
  withBag(async (dir) => {
    let r = bagit(['--validate', dir]);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /is valid/);
    r = bagit(['--validate', '--fast', dir]);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /valid according to Payload-Oxum/);
  }),
);

test.skipIf(skip)(`bagit.py ignores the unlisted signature file but checks listed tag files${skip ? ` [skipped: ${skip}]` : ''}`, () =>
  withBag(async (dir) => {
    await appendFile(join(dir, 'tagmanifest-sha256.txt.minisig'), 'changed\n');
    let r = bagit(['--validate', dir]);
    assert.equal(r.status, 0, r.out);

    await appendFile(join(dir, 'meta/FORMAT.md'), 'changed\n');
    r = bagit(['--validate', dir]);
    assert.notEqual(r.status, 0, r.out);
    assert.match(r.out, /meta\/FORMAT\.md/);
  }),
);

test.skipIf(skip)(`bagit.py catches payload damage; --fast only what changes the oxum${skip ? ` [skipped: ${skip}]` : ''}`, () =>
  withBag(async (dir) => {
    const pack = join(dir, 'data/packs/0001.pack');
    const bytes = await readFile(pack);
    bytes[1000] = bytes[1000]! ^ 0xff;
    await writeFile(pack, bytes);
    assert.equal(bagit(['--validate', '--fast', dir]).status, 0, 'same size: the oxum still matches');
    const r = bagit(['--validate', dir]);
    assert.notEqual(r.status, 0, r.out);
    assert.match(r.out, /data\/packs\/0001\.pack/);

    await rm(join(dir, 'data/hello.txt'));
    assert.notEqual(bagit(['--validate', '--fast', dir]).status, 0);
  }),
);
