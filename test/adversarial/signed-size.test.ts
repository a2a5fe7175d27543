/**
 * Every read of drive data is bounded by the size signed data gives it, in
 * verify, repair and its dry run too, and a hint proposes
 * `brickpost repair` only when repair can succeed. A pack is made a 1 TiB sparse file
 * two ways: its bytes kept and a hole appended (repair cuts it back to its
 * recorded size: verify proposes repair, repair succeeds), and its bytes
 * replaced by the hole (beyond the recovery data: verify does not propose
 * repair, and repair refuses). The bytes each run reads are counted by the
 * kernel (/proc/self/io `rchar`, written at exit by a preloaded probe), so
 * a read to the end of the file, a tebibyte, fails the bound whatever the
 * machine's speed.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, makeDataset, publisherAndSubscriber, shipmentDir, tempDir } from '../support.js';
import { assertBounded, run, type Outcome } from './harness.js';

const TIB = 2 ** 40;
/** Bytes a run may read: the drive (a few MB) many times over, and node's own files; far below a tebibyte. */
const MAX_READ = 256 << 20;

/** Writes /proc/self/io of the main thread to $BP_IO_OUT when the process exits. */
const PROBE = `const { isMainThread } = require('node:worker_threads');
const fs = require('node:fs');
const out = process.env.BP_IO_OUT;
if (isMainThread && out) process.on('exit', () => fs.writeFileSync(out, fs.readFileSync('/proc/self/io')));
`;

describe('reads bounded by the signed size', () => {
  const root = tempDir('bp-adv-signed-');
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const pristine = join(root, 'pristine');
  const probe = join(root, 'io-probe.cjs');

  /** Runs brickpost as the subscriber; returns the outcome and the bytes it read. */
  const counted = (args: string[]): Outcome & { read: number } => {
    const out = join(root, `io-${args[0]}-${Math.random().toString(36).slice(2)}`);
    const o = run(sub, args, { env: { ...process.env, NODE_OPTIONS: `--require ${probe}`, BP_IO_OUT: out }, timeout: 300_000 });
    const read = Number(/^rchar: ([0-9]+)$/m.exec(readFileSync(out, 'utf8'))?.[1]);
    unlinkSync(out);
    return { ...o, read };
  };
  /** A fresh copy of the drive, and its pack of `index`. */
  const copy = (name: string, index: number): { drive: string; pack: string; size: number } => {
    const drive = join(root, name);
    cpSync(pristine, drive, { recursive: true });
    const dir = join(shipmentDir(drive), 'data', 'packs', '000');
    const pack = join(dir, readdirSync(dir).sort()[index]!);
    return { drive, pack, size: statSync(pack).size };
  };
  const hint = (o: Outcome): string => String(o.events.findLast((e) => e.type === 'error')?.hint ?? '');
  const report = (o: Outcome): Record<string, any> => o.events.find((e) => e.type === 'summary')!.result;

  beforeAll(() => {
    writeFileSync(probe, PROBE);
    makeDataset(src, '4M', 44);
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(pristine);
    const r = brickpost(pub, ['pack', src, '--to', pristine, '--recipient', recipient, '--dataset', 'signed', '--recovery', '5'], {
      env: { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) },
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  test('a pack with a 1 TiB hole appended: verify proposes repair, and repair cuts it back, reading neither past the signed size', () => {
    const { drive, pack, size } = copy('appended', 1);
    truncateSync(pack, TIB);
    const v = counted(['verify', drive]);
    assert.equal(v.code, 1, v.stdout.slice(-1500));
    assert.ok(
      report(v).problems.some((p: { code: string; message: string }) => p.code === 'FIXITY_MISMATCH' && p.message.includes(`is ${TIB} bytes, more than`)),
      v.stdout.slice(-1500),
    );
    assert.equal(report(v).repair.repairable, true);
    assert.match(hint(v), /the drive's recovery data can repair it: brickpost repair /);
    assert.ok(v.read < MAX_READ, `verify read ${v.read} bytes`);
    assertBounded(v);

    const dry = counted(['repair', drive, '--dry-run']);
    assert.equal(dry.code, 0, dry.stdout.slice(-1500) + dry.stderr.slice(-1500));
    assert.ok(dry.read < MAX_READ, `repair --dry-run read ${dry.read} bytes`);
    const fix = counted(['repair', drive]);
    assert.equal(fix.code, 0, fix.stdout.slice(-1500) + fix.stderr.slice(-1500));
    assert.ok(fix.read < MAX_READ, `repair read ${fix.read} bytes`);
    assertBounded(fix);
    assert.equal(statSync(pack).size, size, 'the pack is back to its recorded size');
    const deep = brickpost(sub, ['verify', '--deep', drive]);
    assert.equal(deep.code, 0, deep.stdout + deep.stderr);
  });

  test('a pack replaced by a 1 TiB hole: verify does not propose repair, and repair refuses without reading it', () => {
    const { drive, pack } = copy('replaced', 2);
    unlinkSync(pack);
    writeFileSync(pack, '');
    truncateSync(pack, TIB);
    const v = counted(['verify', drive]);
    assert.equal(v.code, 1, v.stdout.slice(-1500));
    assert.equal(report(v).repair.repairable, false);
    assert.doesNotMatch(hint(v), /brickpost repair/);
    assert.ok(v.read < MAX_READ, `verify read ${v.read} bytes`);
    assertBounded(v);

    const fix = counted(['repair', drive]);
    assert.equal(fix.code, 1, fix.stdout.slice(-1500) + fix.stderr.slice(-1500));
    const ev = fix.events.findLast((e) => e.type === 'error')!;
    assert.equal(ev.code, 'FIXITY_MISMATCH');
    assert.match(String(ev.message), /could not be repaired: .*data\/packs\/000\//);
    assert.ok(fix.read < MAX_READ, `repair read ${fix.read} bytes`);
    assertBounded(fix);
  });
});
