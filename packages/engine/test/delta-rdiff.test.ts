import { test } from 'vitest';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignatureBuilder, applyDelta, blockSizeFor, computeDelta, encodeDelta, parseSignature, type DeltaOp } from '../src/delta/index.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const rdiffMissing = spawnSync('rdiff', ['--version']).status !== 0;

/** A reproducible pseudo-random byte stream (AES-256-CTR of zeros). */
function stream(n: number, seed: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
}

/** 20 MiB: 10 MiB of random bytes, then 10 MiB of CSV-like text. */
function baseFile(): Buffer {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < 10 * MiB; i++) {
    const row = `${i},station-${i % 977},${(i * 7919) % 100003},${((i * 31) % 1000) / 10}\n`;
    rows.push(row);
    size += row.length;
  }
  return Buffer.concat([stream(10 * MiB, 1), Buffer.from(rows.join('')).subarray(0, 10 * MiB)]);
}

function overwrite(b: Buffer, at: number, data: Buffer): Buffer {
  const c = Buffer.from(b);
  data.copy(c, at);
  return c;
}

async function ours(old: Buffer, neu: Buffer): Promise<{ delta: number; sig: number; rebuilt: Buffer }> {
  const B = blockSizeFor(old.length);
  const sb = new SignatureBuilder(B);
  for (let o = 0; o < old.length; o += MiB) sb.update(old.subarray(o, o + MiB));
  const sig = sb.final();
  const ops: DeltaOp[] = [];
  const reads = (function* () {
    for (let o = 0; o < neu.length; o += MiB) yield neu.subarray(o, o + MiB);
  })();
  for await (const op of computeDelta(parseSignature(sig), reads)) ops.push(op);
  const out: Buffer[] = [];
  await applyDelta(
    async (o, l) => old.subarray(o, o + l),
    old.length,
    B,
    ops,
    async (b) => {
      out.push(Buffer.from(b));
    },
  );
  return { delta: encodeDelta(ops).length, sig: sig.length, rebuilt: Buffer.concat(out) };
}

function rdiff(dir: string, old: Buffer, neu: Buffer): { delta: number; sig: number } {
  const [o, n, s, d] = ['old', 'new', 'sig', 'delta'].map((f) => join(dir, f)) as [string, string, string, string];
  rmSync(s, { force: true });
  rmSync(d, { force: true });
  writeFileSync(o, old);
  writeFileSync(n, neu);
  execFileSync('rdiff', ['signature', o, s]);
  execFileSync('rdiff', ['delta', s, n, d]);
  return { delta: statSync(d).size, sig: statSync(s).size };
}

test.skipIf(rdiffMissing)(
  `delta sizes against rdiff (librsync) on a 20 MiB file${rdiffMissing ? ` [skipped: rdiff (librsync) not installed]` : ''}`,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'brickpost-delta-rdiff-'));
    try {
      const old = baseFile();
      const n = old.length;
      let scattered = old;
      for (let i = 0; i < 20; i++) scattered = overwrite(scattered, Math.floor((n / 20) * i + 777), stream(10, 100 + i));
      const cases: [string, Buffer][] = [
        ['insert 100 B (random part)', Buffer.concat([old.subarray(0, 5_000_001), stream(100, 2), old.subarray(5_000_001)])],
        ['insert 100 B (text part)', Buffer.concat([old.subarray(0, 15_000_001), stream(100, 3), old.subarray(15_000_001)])],
        ['overwrite 3 × 4 KiB', overwrite(overwrite(overwrite(old, 1_234_567, stream(4096, 4)), 9_999_999, stream(4096, 5)), 17_000_000, stream(4096, 6))],
        ['delete 10 KiB', Buffer.concat([old.subarray(0, 12_000_000), old.subarray(12_010_240)])],
        ['insert 1 MiB', Buffer.concat([old.subarray(0, 3_000_000), stream(MiB, 7), old.subarray(3_000_000)])],
        ['append 50 KiB', Buffer.concat([old, stream(50 * KiB, 8)])],
        ['prepend 1 B', Buffer.concat([Buffer.from('x'), old])],
        ['truncate by 1 MiB', old.subarray(0, n - MiB)],
        ['20 scattered 10 B edits', scattered],
      ];
      console.log(`  ${'case'.padEnd(28)} ${'ours'.padStart(10)} ${'rdiff'.padStart(10)}  ratio`);
      let sigs = '';
      for (const [name, neu] of cases) {
        const a = await ours(old, neu);
        assert.ok(a.rebuilt.equals(neu), `${name}: rebuilt file differs`);
        const r = rdiff(dir, old, neu);
        sigs = `signature of the 20 MiB file: ours ${a.sig} bytes, rdiff's ${r.sig} bytes`;
        console.log(`  ${name.padEnd(28)} ${String(a.delta).padStart(10)} ${String(r.delta).padStart(10)}  ${(a.delta / r.delta).toFixed(2)}`);
        // Deltas of a few dozen bytes are all header; the 2× bound is about the bytes an edit costs.
        assert.ok(a.delta <= 2 * r.delta + 64, `${name}: our delta ${a.delta} bytes, rdiff's ${r.delta}`);
      }
      console.log(`  ${sigs}`);
      // rdiff's delta of our rebuilt file proves nothing new; rdiff patch of its own delta shows the tool works here.
      execFileSync('rdiff', ['patch', join(dir, 'old'), join(dir, 'delta'), join(dir, 'out')]);
      assert.ok(readFileSync(join(dir, 'out')).equals(cases.at(-1)![1]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
