/**
 * The native core and the TypeScript reference write the same shipment:
 * one dataset packed by each path (BRICKPOST_NATIVE=0 forces the
 * TypeScript one) from copies of one publisher home, so both use the same
 * chunk key, then compared byte for byte: every pack's plaintext after its
 * header frame (the frames, in order, decrypted by the real age tool), every
 * file's chunk list (ids and lengths) and signature in the catalog. Each
 * drive is then deep-verified and ingested by the other path, and both
 * destinations equal the source. An incremental shipment of a few edits
 * (the native path reads the unchanged chunks of a changed file without
 * compressing them) is the same on both paths too.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, openSync, readdirSync, readFileSync, utimesSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadNative } from '@brickpost/native';
import {
  brickpost,
  diffSnapshots,
  ROOT,
  hasTool,
  lastEvent,
  makeDataset,
  packFiles,
  packFrames,
  publisherAndSubscriber,
  shipmentDir,
  snapshot,
  tempDir,
} from '../support.js';

const JS = { ...process.env, BRICKPOST_NATIVE: '0' };
const NATIVE = { ...process.env, BRICKPOST_NATIVE: '1' };
const native = loadNative();
// The core is optional where Rust is not installed (build.mjs says `cargo not found`) or switched off on
// purpose (BRICKPOST_NATIVE=0); a core that failed to build or to load fails this test instead.
const optionalAbsent = native.binding === null && (native.disabled || native.reason?.startsWith('cargo not found') === true);
const why = optionalAbsent ? `no native core here (${native.reason})` : hasTool('age') ? null : 'the age tool is not installed';

/** Each file of a shipment's tree in the publisher's catalog: chunk list and signature. */
function tree(home: string, shipment: string): Array<Record<string, unknown>> {
  const db = new Database(join(home, 'catalog.sqlite'), { readonly: true });
  try {
    return db
      .prepare(
        'SELECT f.path, hex(f.chunks) AS chunks, hex(s.sig) AS sig FROM tree_files f LEFT JOIN sigs s ON s.id = f.sig_id WHERE f.shipment_id = ? ORDER BY f.path',
      )
      .all(shipment) as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

describe.skipIf(why)(`native core and TypeScript path write the same shipment${why ? ` [skipped: ${why}]` : ''}`, () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pubJs = join(root, 'pub-js');
  const pubNative = join(root, 'pub-native');
  const sub = join(root, 'sub');
  const shipped: Record<'js' | 'native', { drive: string; id: string }> = { js: { drive: '', id: '' }, native: { drive: '', id: '' } };
  let recipient = '';

  beforeAll(() => {
    assert.ok(native.binding, `the native core did not build or load: ${native.reason}`);
    makeDataset(src, '12M', 5);
    writeFileSync(join(src, 'empty'), '');
    // Files past 8 MiB go through the large-file path (the file's own thread); one repeats itself.
    const big = openSync(join(src, 'large.bin'), 'w');
    const block = Buffer.alloc(1 << 20);
    for (let i = 0; i < 21; i++) {
      for (let j = 0; j < block.length; j += 4) block.writeUInt32LE((Math.imul(i % 7, 2654435761) ^ Math.imul(j, 40503)) >>> 0, j);
      writeSync(big, block);
    }
    closeSync(big);
    recipient = publisherAndSubscriber(pubJs, sub);
    // The dataset's secret (hence its chunk key) is made by its first shipment; both homes then share it.
    const seed = join(root, 'seed');
    mkdirSync(seed);
    writeFileSync(join(seed, 'a'), 'a\n');
    mkdirSync(join(root, 'drive-seed'));
    assert.equal(brickpost(pubJs, ['pack', seed, '--to', join(root, 'drive-seed'), '--recipient', recipient, '--dataset', 'same']).code, 0);
    cpSync(pubJs, pubNative, { recursive: true });
  });

  test('both paths pack', () => {
    for (const [path, home, env] of [
      ['js', pubJs, JS],
      ['native', pubNative, NATIVE],
    ] as const) {
      const drive = join(root, `drive-${path}`);
      mkdirSync(drive);
      const r = brickpost(home, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'same', '--full', '--json'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr.includes('native core unavailable'), false, r.stderr);
      shipped[path] = { drive, id: lastEvent(r).result.shipmentId };
    }
  });

  test('packs hold the same frames, byte for byte', () => {
    const a = packFiles(shipmentDir(shipped.js.drive));
    const b = packFiles(shipmentDir(shipped.native.drive));
    assert.equal(a.length, b.length);
    assert.ok(a.length > 0);
    for (let i = 0; i < a.length; i++) {
      const fa = packFrames(a[i]!, join(pubJs, 'age-identity.txt'));
      const fb = packFrames(b[i]!, join(pubNative, 'age-identity.txt'));
      assert.equal(fa.length, fb.length, `pack ${i} plaintext length`);
      assert.ok(fa.equals(fb), `pack ${i} frames differ`);
    }
  });

  test('the catalogs hold the same chunk lists and signatures', () => {
    const a = tree(pubJs, shipped.js.id);
    const b = tree(pubNative, shipped.native.id);
    assert.ok(a.length > 10);
    assert.ok(
      a.some((r) => r.sig !== null),
      'some files have signatures',
    );
    assert.deepEqual(b, a);
  });

  test('each path deep-verifies and ingests what the other packed', () => {
    for (const [path, env] of [
      ['js', NATIVE],
      ['native', JS],
    ] as const) {
      const drive = shipped[path].drive;
      const v = brickpost(sub, ['verify', drive, '--deep', '--json'], { env });
      assert.equal(v.code, 0, v.stdout.slice(-800) + v.stderr);
      assert.equal(lastEvent(v).result.deep, 'ok');
      const dest = join(root, `dest-${path}`);
      const r = brickpost(sub, ['ingest', drive, dest, '--json'], { env });
      assert.equal(r.code, 0, r.stdout.slice(-800) + r.stderr);
      assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    }
  });

  test('incremental: the same shipment of edits on both paths, unchanged chunks of a changed file read without frames', () => {
    // An overwrite in the middle of the large file and an insert near the start of a smaller one.
    const large = join(src, 'large.bin');
    const fd = openSync(large, 'r+');
    writeSync(fd, Buffer.alloc(5000, 0x5a), 0, 5000, 9 << 20);
    closeSync(fd);
    const small = readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name !== 'large.bin')
      .map((e) => join(e.parentPath, e.name))
      .sort()
      .find((f) => readFileSync(f).length > 1 << 20)!;
    const body = readFileSync(small);
    writeFileSync(small, Buffer.concat([body.subarray(0, 1000), Buffer.from('inserted '.repeat(300)), body.subarray(1000)]));
    const incr: Record<string, { drive: string; id: string; result: Record<string, number> }> = {};
    for (const [path, home, env] of [
      ['js', pubJs, JS],
      ['native', pubNative, NATIVE],
    ] as const) {
      const drive = join(root, `drive-incr-${path}`);
      mkdirSync(drive);
      const r = brickpost(home, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'same', '--json'], { env });
      assert.equal(r.code, 0, r.stderr);
      const result = lastEvent(r).result;
      incr[path] = { drive, id: result.shipmentId, result };
    }
    const [js, nat] = [incr.js!, incr.native!];
    assert.ok(nat.result.chunksHeld! > 20 && nat.result.chunksDelta! > 0, JSON.stringify(nat.result));
    for (const k of ['chunks', 'chunksHeld', 'bytesHeld', 'chunksDelta', 'bytesDelta', 'deltaFrameBytes'])
      assert.equal(nat.result[k], js.result[k], `${k} differs`);
    const a = packFiles(shipmentDir(js.drive));
    const b = packFiles(shipmentDir(nat.drive));
    assert.equal(a.length, b.length);
    for (let i = 0; i < a.length; i++)
      assert.ok(packFrames(a[i]!, join(pubJs, 'age-identity.txt')).equals(packFrames(b[i]!, join(pubNative, 'age-identity.txt'))), `pack ${i} frames differ`);
    assert.deepEqual(tree(pubNative, nat.id), tree(pubJs, js.id));
    for (const [path, env] of [
      ['js', NATIVE],
      ['native', JS],
    ] as const) {
      const r = brickpost(sub, ['ingest', incr[path]!.drive, join(root, `dest-${path}`), '--json'], { env });
      assert.equal(r.code, 0, r.stdout.slice(-800) + r.stderr);
      assert.deepEqual(diffSnapshots(snapshot(src), snapshot(join(root, `dest-${path}`))), []);
    }
  });

  test('the core gives chunks whose ids are known no frame and no bytes', async () => {
    const chunker = new native.binding!.Chunker(Buffer.alloc(32, 7), 3);
    const file = join(src, 'large.bin');
    const size = readFileSync(file).length;
    const read = async (known: Buffer | null): Promise<Awaited<ReturnType<ReturnType<typeof chunker.open>['next']>>['chunks']> => {
      const f = chunker.open(Buffer.from(file), size, true, 0, true, known);
      const out = [];
      try {
        for (;;) {
          const b = await f.next();
          out.push(...b.chunks);
          if (b.done) return out;
        }
      } finally {
        f.close();
      }
    };
    const all = await read(null);
    assert.ok(all.length > 4);
    // Every other chunk's id (the file repeats itself: a later chunk may share one).
    const known = new Set(all.filter((_, i) => i % 2 === 0).map((c) => c.id.toString('hex')));
    const some = await read(Buffer.from([...known].join(''), 'hex'));
    assert.equal(some.length, all.length);
    some.forEach((c, i) => {
      const full = all[i]!;
      assert.ok(c.id.equals(full.id) && c.sha!.equals(full.sha!) && c.length === full.length, `chunk ${i} is the same chunk`);
      assert.equal(c.known, known.has(c.id.toString('hex')), `chunk ${i} known`);
      if (c.known) assert.ok(c.frame.length === 0 && !c.raw, `chunk ${i}: no frame, no bytes`);
      else assert.ok(c.frame.toBuffer().equals(full.frame.toBuffer()) && c.raw!.equals(full.raw!), `chunk ${i}: frame and bytes as before`);
    });
  });
});

test('a native module older than its sources is not loaded, and the reason says how to rebuild it', async () => {
  const dir = tempDir('bp-stale-native-');
  for (const f of ['index.js', 'newest.mjs']) cpSync(join(ROOT, 'packages', 'native', f), join(dir, f));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'brickpost-native.node'), 'not a module');
  writeFileSync(join(dir, 'src', 'lib.rs'), '// changed after the build\n');
  const then = new Date(Date.now() - 60_000);
  utimesSync(join(dir, 'brickpost-native.node'), then, then);
  const { loadNative: load } = (await import(pathToFileURL(join(dir, 'index.js')).href)) as typeof import('@brickpost/native');
  // The suite also runs with BRICKPOST_NATIVE=0, which the loader honours before it looks at any file.
  const switched = process.env.BRICKPOST_NATIVE;
  delete process.env.BRICKPOST_NATIVE;
  let got: ReturnType<typeof load>;
  try {
    got = load();
  } finally {
    if (switched !== undefined) process.env.BRICKPOST_NATIVE = switched;
  }
  assert.equal(got.binding, null);
  assert.match(got.reason ?? '', /older than its sources; rebuild it: npm run build -w @brickpost\/native$/);
});
