/**
 * First shipment end to end through the real CLI: keygen → trust → pack →
 * verify → verify --deep → ingest → the destination equals the source
 * (bytes, paths, mtimes, modes), on a generated dataset plus the awkward
 * cases: empty files and folders, unicode names, an executable, a file
 * over 64 MiB.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { brickpost, diffSnapshots, lastEvent, makeDataset, snapshot, tempDir } from '../support.js';

describe('first shipment, one drive', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const dest = join(root, 'dest');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  let recipient = '';
  let packSummary: Record<string, any> = {};

  beforeAll(() => {
    makeDataset(src, '24M', 7);
    mkdirSync(join(src, 'empty-dir', 'nested-empty'), { recursive: true });
    writeFileSync(join(src, 'empty-file'), '');
    mkdirSync(join(src, 'ünïcödé'));
    writeFileSync(join(src, 'ünïcödé', '日本語 ファイル.txt'), 'こんにちは\n');
    writeFileSync(join(src, 'ünïcödé', 'emoji-🚚.txt'), 'truck\n');
    writeFileSync(join(src, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(src, 'run.sh'), 0o755);
    // A 65 MiB file of varied content (one pack boundary and many chunks).
    const big = openSync(join(src, 'big.bin'), 'w');
    const block = Buffer.alloc(1 << 20);
    for (let i = 0; i < 65; i++) writeSync(big, fill(block, i));
    closeSync(big);
    utimesSync(join(src, 'big.bin'), 1700000000.5, 1700000000.5);
    mkdirSync(drive);
    for (const h of [pub, sub]) {
      const r = brickpost(h, ['keygen', '--name', h === pub ? 'publisher' : 'subscriber']);
      assert.equal(r.code, 0, r.stderr);
    }
    recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient;
    const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(sub, ['trust', 'add', pk, '--name', 'publisher']).code, 0);
  });

  test('pack writes one signed shipment with the summary fields', () => {
    const r = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'survey', '--label', 'base', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const ev = lastEvent(r);
    assert.equal(ev.type, 'summary');
    packSummary = ev.result;
    for (const k of ['shipmentId', 'files', 'bytesIn', 'bytesOnDrive']) assert.ok(k in packSummary, `summary lacks ${k}`);
    const files = [...snapshot(src).values()].filter((n) => n.type === 'file');
    assert.equal(packSummary.files, files.length);
    assert.equal(
      packSummary.bytesIn,
      files.reduce((s, n) => s + n.size, 0),
    );
    assert.ok(packSummary.bytesOnDrive < packSummary.bytesIn, 'compression and dedup make the shipment smaller than the source');
    assert.deepEqual(readdirSync(join(drive, 'brickpost')), [packSummary.shipmentId]);
  });

  test('verify without a key passes for the subscriber', () => {
    const r = brickpost(sub, ['verify', drive, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const rep = lastEvent(r).result;
    assert.equal(rep.signature, 'valid');
    assert.equal(rep.fixity, 'ok');
    assert.equal(rep.deep, 'skipped');
    assert.equal(rep.publisher.name, 'publisher');
  });

  test('verify --deep re-hashes every chunk, each stored chunk once', () => {
    const r = brickpost(sub, ['verify', '--deep', drive, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const rep = lastEvent(r).result;
    assert.equal(rep.deep, 'ok');
    assert.equal(rep.refsCovered, packSummary.chunks);
    assert.equal(rep.chunksChecked, packSummary.chunks - packSummary.chunksDeduplicated);
  });

  test('ingest gives a byte-identical tree with mtimes and modes', () => {
    const r = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(lastEvent(r).result.alreadyApplied, false);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    assert.equal(snapshot(dest).get('run.sh')!.mode, 0o755);
    assert.ok(existsSync(join(dest, 'empty-dir', 'nested-empty')));
    assert.deepEqual(readdirSync(join(dest, '.brickpost', 'staging')), [], 'no staging leftovers');
    assert.ok(existsSync(join(dest, '.brickpost', 'manifests', `${packSummary.shipmentId}.age`)), 'the manifest is kept with the destination');
    const db = new Database(join(sub, 'catalog.sqlite'), { readonly: true });
    try {
      const ds = db.prepare('SELECT name, length(secret) AS n FROM datasets WHERE id = ?').get(packSummary.datasetId) as { name: string; n: number };
      assert.deepEqual(ds, { name: 'survey', n: 32 }, 'the subscriber keeps the dataset and its secret');
      const sh = db.prepare('SELECT seq, role FROM shipments WHERE id = ?').get(packSummary.shipmentId);
      assert.deepEqual({ ...(sh as object) }, { seq: 1, role: 'received' });
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      db.close();
    }
  });

  test('a second ingest of the same shipment is a no-op that says so', () => {
    const before = snapshot(dest);
    const r = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /already applied/);
    assert.deepEqual(diffSnapshots(before, snapshot(dest)), []);
  });

  test('ls lists every entry of the shipment', () => {
    const r = brickpost(sub, ['ls', drive, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const entries = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(entries.length, snapshot(src).size);
    assert.ok(entries.some((e) => e.path === 'ünïcödé/日本語 ファイル.txt' && e.type === 'file'));
  });

  test('the publisher can read its own shipment; a stranger cannot', () => {
    assert.equal(brickpost(pub, ['verify', '--deep', drive]).code, 0);
    const stranger = join(root, 'stranger');
    brickpost(stranger, ['keygen']);
    const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
    brickpost(stranger, ['trust', 'add', pk]);
    const r = brickpost(stranger, ['verify', '--deep', drive, '--json']);
    assert.equal(r.code, 3, r.stdout);
    assert.match(r.stdout, /NO_MATCHING_KEY/);
  });

  test('a newer full shipment replaces the tree; replaying the older one is refused', () => {
    writeFileSync(join(src, 'added.txt'), 'new in shipment 2\n');
    const drive2 = join(root, 'drive2');
    mkdirSync(drive2);
    const p = brickpost(pub, ['pack', src, '--to', drive2, '--recipient', recipient, '--dataset', 'survey', '--full', '--json']);
    assert.equal(p.code, 0, p.stderr);
    assert.equal(lastEvent(p).result.seq, 2);
    assert.equal(lastEvent(p).result.full, true);
    const r = brickpost(sub, ['ingest', drive2, dest, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    assert.ok(existsSync(join(dest, '.brickpost', 'undo', lastEvent(p).result.shipmentId)), 'what shipment 2 changed is kept for rollback');
    const old = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(old.code, 6, 'shipment 1 was applied before shipment 2: a replay');
    assert.equal(lastEvent(old).code, 'CHAIN_REPLAY');
    assert.match(lastEvent(old).message, /now at seq 2/);
    const fresh = join(root, 'dest-fresh');
    assert.equal(brickpost(sub, ['ingest', drive2, fresh]).code, 0);
    const replay = brickpost(sub, ['ingest', drive, fresh, '--json']);
    assert.equal(replay.code, 6, replay.stdout);
    assert.equal(lastEvent(replay).code, 'CHAIN_REPLAY');
    assert.deepEqual(
      readdirSync(fresh).sort(),
      readdirSync(dest)
        .filter((n) => n !== '.brickpost')
        .concat('.brickpost')
        .sort(),
    );
    const h = brickpost(sub, ['history', dest, '--json']);
    assert.equal(h.code, 0, h.stderr);
    const hist = JSON.parse(h.stdout);
    assert.equal(hist.dataset, 'survey');
    assert.deepEqual(
      hist.shipments.map((x: { seq: number }) => x.seq),
      [1, 2],
    );
    assert.equal(hist.shipments[0].label, 'base');
    assert.match(brickpost(sub, ['history', dest]).stdout, /#2 /);
    assert.equal(brickpost(sub, ['history', root]).code, 2, 'a folder nothing was ingested into');
  });
});

function fill(block: Buffer, i: number): Buffer {
  // Half compressible text, half pseudo-random bytes, different per MiB.
  let x = createHash('sha256').update(String(i)).digest();
  for (let o = 0; o < block.length / 2; o += 32) {
    x = createHash('sha256').update(x).digest();
    x.copy(block, o);
  }
  block.fill(`line ${i} of a big file\n`, block.length / 2);
  return block;
}
