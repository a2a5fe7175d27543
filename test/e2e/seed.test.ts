/**
 * Seeding a subscriber by hand: the subscriber copies an old version of the
 * source with cp -a (brickpost never wrote that folder), describes it with
 * `brickpost signature`, and the publisher packs the new version against
 * that signature. The shipment carries about what changed, not the tree,
 * and ingest turns the copy into the new version exactly. The publisher
 * refuses a signature by a key it does not trust, or one that was altered.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, lastEvent, MAKE_DATASET, makeDataset, sh, snapshot, tempDir, type Run } from '../support.js';

describe('a subscriber seeded by hand', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const dest = join(root, 'dest');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const sig = join(root, 'dest.bpsig');
  let recipient = '';
  let subKey = '';
  let mutation: Record<string, any> = {};

  const pack = (drive: string, against: string): Run => {
    mkdirSync(drive, { recursive: true });
    return brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'survey', '--against', against, '--json']);
  };
  /** Finished shipment folders on a drive. */
  const shipments = (drive: string): string[] =>
    existsSync(join(drive, 'brickpost')) ? readdirSync(join(drive, 'brickpost')).filter((n) => !n.endsWith('.part')) : [];

  beforeAll(() => {
    for (const [h, name] of [
      [pub, 'publisher'],
      [sub, 'subscriber'],
    ] as const) {
      const r = brickpost(h, ['keygen', '--name', name]);
      assert.equal(r.code, 0, r.stderr);
    }
    const s = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout);
    recipient = s.recipient;
    subKey = s.minisignPublicKey;
    const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(sub, ['trust', 'add', pk, '--name', 'publisher']).code, 0);
    makeDataset(src, '24M', 5);
    sh('cp', ['-a', src, dest]);
    mutation = JSON.parse(sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', '6', '-q']).toString('utf8'));
  });

  test('signature writes a signed description of a folder brickpost never wrote, and changes nothing in it', () => {
    const before = snapshot(dest);
    const r = brickpost(sub, ['signature', dest, '--out', sig, '--dataset', 'survey']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(existsSync(sig) && existsSync(`${sig}.minisig`), 'the signature and its minisign signature');
    assert.deepEqual(diffSnapshots(before, snapshot(dest)), []);
    assert.ok(!existsSync(join(dest, '.brickpost')), 'signature does not make the folder a destination');
    sh('minisign', ['-V', '-q', '-P', subKey, '-m', sig]);
  });

  test('the publisher refuses a signature by a key it does not trust, or an altered one', () => {
    const drive = join(root, 'drive-untrusted');
    const r = pack(drive, sig);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.deepEqual(shipments(drive), [], 'nothing is left on the drive');

    assert.equal(brickpost(pub, ['trust', 'add', subKey, '--name', 'subscriber']).code, 0);
    const altered = join(root, 'altered.bpsig');
    const bytes = readFileSync(sig);
    bytes[bytes.length >> 1]! ^= 0x01;
    writeFileSync(altered, bytes);
    writeFileSync(`${altered}.minisig`, readFileSync(`${sig}.minisig`));
    const bad = pack(join(root, 'drive-altered'), altered);
    assert.equal(bad.code, 3, bad.stdout + bad.stderr);
    assert.equal(lastEvent(bad).code, 'SIGNATURE_INVALID');
    assert.deepEqual(shipments(join(root, 'drive-altered')), []);
  });

  test('the shipment packed against the signature is small and ingest gives the new version exactly', () => {
    const drive = join(root, 'drive');
    const r = pack(drive, sig);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const s = lastEvent(r).result;
    const tree = [...snapshot(src).values()].filter((n) => n.type === 'file');
    const treeBytes = tree.reduce((n, f) => n + f.size, 0);
    assert.equal(s.full, false);
    assert.ok(s.chunksHeld > 0 && s.bytesHeld > 0, 'unchanged files are held, not shipped');
    assert.ok(s.bytesOnDrive < 0.25 * treeBytes, `${s.bytesOnDrive} bytes on the drive for a tree of ${treeBytes} (${mutation.bytes_changed} bytes changed)`);

    const i = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(i.code, 0, i.stdout + i.stderr);
    assert.equal(lastEvent(i).result.alreadyApplied, false);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), [], 'the copy is now the new version');
    for (const [from] of mutation.renamed_files as [string, string][]) assert.ok(!existsSync(join(dest, from)), `${from} moved away`);
  });
});
