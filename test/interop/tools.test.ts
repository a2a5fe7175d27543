/**
 * The on-drive contract checked with the real tools a recipient would use
 * without brickpost: minisign verifies the signature, bagit.py validates
 * the bag, age decrypts the manifest and the packs, zstd decodes what age
 * yields, and files are rebuilt by hand from the manifest alone.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, hasTool, lastEvent, makeDataset, sh, shipmentDir, snapshot, tempDir } from '../support.js';

const missing = ['age', 'zstd', 'minisign', 'bagit.py'].filter((t) => !hasTool(t, t === 'minisign' ? ['-v'] : ['--version']));
const skip = missing.length
  ? `interop tools not installed: ${missing.join(', ')} (run .ci/run or apt-get install age zstd minisign; pip install bagit)`
  : false;

describe.skipIf(skip)(`interop with age, zstd, minisign and bagit.py${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const home = join(root, 'home');
  let bag = '';
  let identityFile = '';
  let publicKey = '';
  let manifestLines: any[] = [];

  beforeAll(() => {
    makeDataset(src, '6M', 3);
    mkdirSync(drive);
    assert.equal(brickpost(home, ['keygen', '--name', 'lab']).code, 0);
    const who = JSON.parse(brickpost(home, ['whoami', '--json']).stdout);
    identityFile = who.identityFile;
    publicKey = who.minisignPublicKey;
    const r = brickpost(home, ['pack', src, '--to', drive, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(lastEvent(r).type, 'summary');
    bag = shipmentDir(drive);
  });

  test('minisign -V verifies the tag manifest signature', () => {
    const out = sh('minisign', ['-V', '-P', publicKey, '-m', join(bag, 'tagmanifest-sha256.txt')]).toString();
    assert.match(out, /Signature and comment signature verified/);
    assert.match(out, new RegExp(`shipment:${bag.split('/').pop()}`));
  });

  test('minisign -V rejects a modified tag manifest', () => {
    const copy = join(root, 'tm-copy.txt');
    writeFileSync(
      copy,
      readFileSync(join(bag, 'tagmanifest-sha256.txt'), 'utf8').replace(/^[0-9a-f]/, (c) => (c === '0' ? '1' : '0')),
    );
    writeFileSync(copy + '.minisig', readFileSync(join(bag, 'tagmanifest-sha256.txt.minisig')));
    assert.throws(() => sh('minisign', ['-V', '-P', publicKey, '-m', copy]));
  });

  test('bagit.py --validate accepts the shipment folder', () => {
    const out = sh('bagit.py', ['--validate', bag], { stdio: ['ignore', 'pipe', 'pipe'] });
    assert.ok(out !== undefined);
  });

  test('age -d decrypts the manifest and zstd -d decodes it to NDJSON', () => {
    const plain = sh('age', ['-d', '-i', identityFile, join(bag, 'data', 'manifest.age')]);
    const text = sh('zstd', ['-d', '-c'], { input: plain }).toString('utf8');
    manifestLines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(manifestLines[0].t, 'shipment');
    assert.equal(manifestLines[0].format, 'brickpost-manifest/v2');
    assert.equal(manifestLines[manifestLines.length - 1].t, 'end');
  });

  test('age -d | zstd -d on every pack yields its chunks back to back', () => {
    const packs = manifestLines.filter((r) => r.t === 'pack');
    assert.ok(packs.length >= 1);
    for (const p of packs) {
      const plain = sh('age', ['-d', '-i', identityFile, join(bag, p.path)]);
      assert.equal(plain.length, p.plain);
      const raw = sh('zstd', ['-d', '-c'], { input: plain });
      const firstRefs = new Map<number, number>();
      for (const r of manifestLines) if (r.t === 'file' || r.t === 'more') for (const c of r.c) if (c[1] === p.i) firstRefs.set(c[2], c[4]);
      assert.equal(
        raw.length,
        [...firstRefs.values()].reduce((a, b) => a + b, 0),
      );
    }
  });

  test('files rebuild by hand from the manifest with age and zstd alone', () => {
    const plains = new Map<number, Buffer>();
    const plainOf = (i: number): Buffer => {
      if (!plains.has(i))
        plains.set(
          i,
          sh('age', ['-d', '-i', identityFile, join(bag, 'data', 'packs', String(Math.floor(i / 1000)).padStart(3, '0'), `${String(i).padStart(6, '0')}.age`)]),
        );
      return plains.get(i)!;
    };
    const out = join(root, 'by-hand');
    const files = new Map<string, Buffer[]>();
    let last = '';
    for (const r of manifestLines) {
      if (r.t === 'file') ((last = r.p), files.set(r.p, []));
      if (r.t === 'file' || r.t === 'more') {
        for (const [, p, off, len] of r.c) files.get(last)!.push(sh('zstd', ['-d', '-c'], { input: plainOf(p).subarray(off, off + len) }));
      }
    }
    const want = snapshot(src);
    let checked = 0;
    for (const [path, parts] of files) {
      const content = Buffer.concat(parts);
      const w = want.get(path)!;
      assert.equal(content.length, w.size, path);
      if (checked++ < 50) {
        mkdirSync(join(out, path, '..'), { recursive: true });
        writeFileSync(join(out, path), content);
        assert.equal(snapshot(join(out, path, '..')).get(path.split('/').pop()!)!.sha256, w.sha256, path);
      }
    }
    assert.equal(files.size, [...want.values()].filter((n) => n.type === 'file').length);
    assert.ok(readdirSync(out).length > 0);
  });
});
