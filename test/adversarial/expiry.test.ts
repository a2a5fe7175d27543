/**
 * Signed expiry against indefinite freeze and replay: `pack --expires`
 * writes Brickpost-Expires into the signed bag-info; ingest refuses a
 * shipment past it (EXPIRED, exit 6) before DEST changes, unless
 * --allow-expired. An expiry edited on the drive no longer matches the
 * signed tag manifest.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildVector, newParty, type Parties } from '@brickpost/engine/testing';
import { brickpost, diffSnapshots, errorEvent, makeDataset, publisherAndSubscriber, shipmentDir, snapshot, tempDir } from '../support.js';
import { assertRefused, run } from './harness.js';

const EXPIRED_BODY = [
  'chunk hello "hello, world\\n"',
  '',
  'bag-info Brickpost-Created 2021-06-01T12:00:00.000Z',
  'bag-info Brickpost-Expires 2021-06-30T12:00:00.000Z',
  'header',
  'file a.txt hello',
  'packs',
  'end',
  '',
].join('\n');

describe('signed expiry', () => {
  const root = tempDir('bp-adv-expiry-');
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const drive = join(root, 'drive');
  let recipient = '';

  beforeAll(() => {
    makeDataset(src, '1M', 51);
    recipient = publisherAndSubscriber(pub, sub);
  });

  test('pack --expires 30d signs an expiry 30 days after packing; the shipment ingests before it', () => {
    mkdirSync(drive);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--expires', '30d', '--json']);
    assert.equal(p.code, 0, p.stdout + p.stderr);
    const info = readFileSync(join(shipmentDir(drive), 'bag-info.txt'), 'utf8');
    const created = /^Brickpost-Created: (.+)$/m.exec(info)![1]!;
    const expires = /^Brickpost-Expires: (.+)$/m.exec(info)?.[1];
    assert.equal(expires, new Date(Date.parse(created) + 30 * 86400_000).toISOString());
    const dest = join(root, 'dest');
    const i = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(i.code, 0, i.stdout + i.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });

  test('an expiry moved on the drive without the key: bag-info no longer matches the signed tag manifest (exit 1)', () => {
    const copy = join(root, 'drive-edited');
    cpSync(drive, copy, { recursive: true });
    const file = join(shipmentDir(copy), 'bag-info.txt');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^Brickpost-Expires: .*$/m, 'Brickpost-Expires: 2999-01-01T00:00:00.000Z'));
    assertRefused(run(sub, ['ingest', copy, join(root, 'dest-edited')]), { code: 'FIXITY_MISMATCH', exit: 1, names: 'tag file "bag-info.txt"' });
  });

  test('past its expiry a shipment is refused (EXPIRED, exit 6), DEST holds nothing; --allow-expired ingests it', async () => {
    const parties: Parties = { self: newParty(join(root, 'homes', 'self')), stranger: newParty(join(root, 'homes', 'stranger')) };
    const work = mkdtempSync(join(root, 'crafted-'));
    const crafted = join(work, 'drive');
    mkdirSync(crafted);
    mkdirSync(join(work, 'scratch'));
    await buildVector(EXPIRED_BODY, parties, crafted, join(work, 'scratch'));
    const home = join(root, 'homes', 'self');
    const dest = join(work, 'dest');
    const o = run(home, ['ingest', crafted, dest]);
    assertRefused(o, { code: 'EXPIRED', exit: 6, names: /expired at 2021-06-30T12:00:00\.000Z; it was packed at / });
    assert.match(errorEvent(o).hint, /--allow-expired/);
    assert.deepEqual(existsSync(dest) ? readdirSync(dest).filter((f) => f !== '.brickpost') : [], []);
    const ok = brickpost(home, ['ingest', crafted, dest, '--allow-expired', '--json']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.equal(readFileSync(join(dest, 'a.txt'), 'utf8'), 'hello, world\n');
  });

  test('pack --expires with something that is not a duration: usage error (exit 2), nothing written', () => {
    const d = join(root, 'drive-bad');
    mkdirSync(d);
    const p = brickpost(pub, ['pack', src, '--to', d, '--recipient', recipient, '--expires', 'soon', '--json']);
    assert.equal(p.code, 2, p.stdout + p.stderr);
    assert.match(errorEvent(p).message, /--expires must be a duration/);
    assert.deepEqual(readdirSync(d), []);
  });
});
