/**
 * Payload files larger than signed data allows, through the real CLI: a
 * pack made a sparse 1 TiB file (keyless verify, ingest), a parity file
 * one byte longer than the set file gives it (verify of that drive), and
 * a set drive with a sparse pack copied by `ingest --gather`. Each is
 * refused at once, naming the file and the bound, without reading or
 * copying past what Payload-Oxum or the set file declares.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, lastEvent, makeDataset, publisherAndSubscriber, sh, shipmentDir, tempDir } from '../support.js';
import { assertRefused, run } from './harness.js';

const env = { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) };
const TIB = String(2 ** 40);
/** Far less than reading 1 TiB would take: the file is refused unread. */
const FAST_MS = 20_000;

describe('payload files larger than signed data allows', () => {
  const root = tempDir('bp-adv-size-');
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const drive = join(root, 'drive');
  const set = [1, 2, 3].map((i) => join(root, 'set', `d${i}`));

  beforeAll(() => {
    makeDataset(src, '3M', 21);
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(drive);
    for (const d of set) mkdirSync(d, { recursive: true });
    let r = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'sized', '--json'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    r = brickpost(pub, ['pack', src, ...set.flatMap((d) => ['--to', d]), '--recipient', recipient, '--dataset', 'sized-set', '--json'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  /** A copy of a drive whose file `rel` (in the bag) is made `size` bytes long with truncate (sparse). */
  const grown = (from: string, name: string, rel: string, size: string): { copy: string; file: string } => {
    const copy = join(root, name);
    cpSync(from, copy, { recursive: true });
    const file = join(shipmentDir(copy), rel);
    sh('truncate', ['-s', size, file]);
    assert.equal(String(statSync(file).size), size);
    return { copy, file };
  };

  test('a pack grown to a sparse 1 TiB: keyless verify refuses it unread, naming the Payload-Oxum bound (exit 1)', () => {
    const { copy } = grown(drive, 'drive-1t', 'data/packs/000/000000.age', TIB);
    const t = performance.now();
    const o = run(sub, ['verify', copy], { timeout: 60_000 });
    const ms = performance.now() - t;
    assertRefused(o, {
      code: 'FIXITY_MISMATCH',
      exit: 1,
      names: /"data\/packs\/000\/000000\.age" is 1099511627776 bytes, more than the [0-9]+ bytes .*\(Payload-Oxum/,
    });
    assert.ok(ms < FAST_MS, `verify took ${ms.toFixed(0)} ms`);
    const report = lastEvent(o).result ?? o.events.find((e) => e.type === 'summary')?.result;
    assert.ok(report.bytesChecked < 2 ** 30, `bytes hashed ${report.bytesChecked}`);
  });

  test('the same drive ingested: refused at once (exit 1), DEST holds nothing', () => {
    const { copy } = grown(drive, 'drive-1t-ingest', 'data/packs/000/000000.age', TIB);
    const dest = join(root, 'dest-1t');
    const t = performance.now();
    const o = run(sub, ['ingest', copy, dest], { timeout: 60_000 });
    assert.ok(performance.now() - t < FAST_MS);
    assert.equal(o.code, 1, o.stdout + o.stderr);
    assert.ok(['FIXITY_MISMATCH', 'PAYLOAD_CORRUPT', 'MALFORMED'].includes(lastEvent(o).code), JSON.stringify(lastEvent(o)));
    assert.deepEqual(existsSync(dest) ? readdirSync(dest).filter((f) => f !== '.brickpost') : [], []);
  });

  test('a parity file one byte longer than the set file gives it: refused unread, naming that bound', () => {
    const parity = join(shipmentDir(set[2]!), 'data', 'parity');
    const rel = `data/parity/${readdirSync(parity)[0]}/${readdirSync(join(parity, readdirSync(parity)[0]!))[0]}`;
    const copy = join(root, 'parity-long');
    cpSync(set[2]!, copy, { recursive: true });
    const file = join(shipmentDir(copy), rel);
    const size = statSync(file).size;
    appendFileSync(file, 'x');
    const o = run(sub, ['verify', copy]);
    assertRefused(o, {
      code: 'FIXITY_MISMATCH',
      exit: 1,
      names: `${JSON.stringify(rel)} is ${size + 1} bytes, more than the ${size} bytes the set file gives it`,
    });
  });

  test('ingest --gather of a set drive whose pack is a sparse 1 TiB: refused before copying it (exit 1)', () => {
    const { copy } = grown(set[0]!, join('alone', 'gather-1t'), 'data/packs/000/000000.age', TIB);
    const dest = join(root, 'dest-gather-1t');
    const t = performance.now();
    const o = run(sub, ['ingest', copy, dest, '--gather'], { timeout: 60_000 });
    assert.ok(performance.now() - t < FAST_MS);
    assertRefused(o, {
      code: 'FIXITY_MISMATCH',
      exit: 1,
      names: /"data\/packs\/000\/000000\.age" is 1099511627776 bytes, more than the [0-9]+ bytes the set file gives it/,
    });
    const gathered = join(dest, '.brickpost', 'gather');
    const copied = existsSync(gathered) ? sh('du', ['-sb', gathered]).toString().split('\t')[0] : '0';
    assert.ok(Number(copied) < 64 << 20, `gather copied ${copied} bytes`);
  });
});
