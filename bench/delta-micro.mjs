#!/usr/bin/env node
/**
 * Microbenchmark of the delta stage (packages/engine/src/delta): MB/s of the
 * signature, the delta on matching and on non-matching data, and the patch,
 * on a 256 MiB file in memory; then delta sizes against rdiff (librsync) on
 * the largest file of the benchmark dataset edited by make_dataset.py
 * --mutate, with a sweep of block sizes (signature size against delta size).
 *
 *   npx tsc -b && node bench/delta-micro.mjs [--dataset DIR] [--size 300M] [--mib 256]
 *
 * The dataset is DIR (default /tmp/brickpost-bench-ds-300M), made by
 * bench/make_dataset.py when missing; its mutated copy is DIR-mut5
 * (a copy of DIR, then --mutate 5 --seed 2). MB means 10^6 bytes of input.
 * "MB per CPU-second" divides by this process's CPU time, which stays
 * meaningful when other work shares the machine; wall MB/s does not.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { best, time } from './lib/micro.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const deltaMod = join(root, 'packages/engine/dist/src/delta/index.js');
if (!existsSync(deltaMod)) {
  console.error('delta-micro: build first: npx tsc -b');
  process.exit(2);
}
const { SignatureBuilder, parseSignature, computeDelta, encodeDelta, applyDelta, blockSizeFor } = await import(deltaMod);

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: '/tmp/brickpost-bench-ds-300M' },
    size: { type: 'string', default: '300M' },
    mib: { type: 'string', default: '256' },
  },
});
const MiB = 1 << 20;
const makeDataset = join(root, 'bench', 'make_dataset.py');

function py(args) {
  const r = spawnSync('python3', [makeDataset, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    console.error(`delta-micro: make_dataset.py ${args.join(' ')} failed (${r.status ?? r.error?.message})`);
    process.exit(1);
  }
}

const rows = [];
function report(step, bytes, r, note = '') {
  const row = { step, 'MB/s': Math.round(bytes / r.wall / 1e6), 'MB/cpu-s': Math.round(bytes / r.cpu / 1e6), wall_s: +r.wall.toFixed(3), note };
  rows.push(row);
  console.error(`${step}: ${row['MB/s']} MB/s wall, ${row['MB/cpu-s']} MB per CPU-second ${note}`);
}

function* reads(buf) {
  for (let o = 0; o < buf.length; o += MiB) yield buf.subarray(o, o + MiB);
}

function signature(buf, B) {
  const sb = new SignatureBuilder(B);
  for (const r of reads(buf)) sb.update(r);
  return sb.final();
}

async function deltaOps(sig, buf) {
  const ops = [];
  for await (const op of computeDelta(sig, reads(buf))) ops.push(op);
  return ops;
}

function random(n, seed) {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
}

function text(n, seed) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < n; i++) {
    const s = `${i},sensor-${(i * seed) % 4099},${(i * 7919 + seed) % 100003},${((i * 31) % 1000) / 10},ok\n`;
    parts.push(s);
    size += s.length;
  }
  return Buffer.from(parts.join('')).subarray(0, n);
}

// 1. Throughput on a file of --mib MiB in memory, read in 1 MiB pieces.
const N = Number(values.mib) * MiB;
const B = blockSizeFor(N);
const old = random(N, 1);
const sigRun = await best(2, () => signature(old, B));
const sigBuf = sigRun.result;
report(`signature, ${B / 1024} KiB blocks`, N, sigRun, `${sigBuf.length} bytes of signature`);
const sig = parseSignature(sigBuf);

const edited = Buffer.from(old);
for (let i = 0; i < 16; i++) random(1000, 50 + i).copy(edited, Math.floor((N / 16) * i + 12345));
const matchRun = await best(2, () => deltaOps(sig, edited));
const matchOps = matchRun.result;
report('delta, matching (16 × 1000 B overwritten)', N, matchRun, `${matchOps.length} ops, ${encodeDelta(matchOps).length} bytes encoded`);

const other = random(N, 2);
report('delta, non-matching random', N, await best(2, () => deltaOps(sig, other)));
const otherText = text(N, 3);
const oldText = text(N, 5);
const sigText = parseSignature(signature(oldText, B));
report('delta, non-matching text (CSV rows)', N, await best(2, () => deltaOps(sigText, otherText)));

const out = Buffer.allocUnsafe(N);
const patchRun = await best(2, async () => {
  let at = 0;
  await applyDelta(
    async (o, l) => old.subarray(o, o + l),
    N,
    B,
    matchOps,
    async (b) => {
      at += b.copy(out, at);
    },
  );
  return at;
});
if (!out.equals(edited)) throw new Error('patch rebuilt the wrong bytes');
report('patch (old file in memory)', N, patchRun);

// 2. Delta sizes on the largest file that --mutate changed, against rdiff.
const dsDir = values.dataset;
const mutDir = `${dsDir}-mut5`;
if (!existsSync(dsDir)) {
  console.error(`delta-micro: generating ${values.size} dataset in ${dsDir}`);
  py([dsDir, '--size', values.size, '-q']);
}
if (!existsSync(mutDir)) {
  console.error(`delta-micro: copying to ${mutDir} and mutating 5 %`);
  execFileSync('cp', ['-a', dsDir, mutDir]);
  py([mutDir, '--mutate', '5', '--seed', '2', '-q']);
}
function walk(dir, acc = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, acc);
    else if (e.isFile()) acc.push(p);
  }
  return acc;
}
// Signature bytes the catalog would hold for the whole dataset at blockSizeFor (20-byte header, 12 bytes a block).
let dsBytes = 0;
let dsSig = 0;
for (const p of walk(dsDir)) {
  const n = statSync(p).size;
  dsBytes += n;
  dsSig += 20 + 12 * Math.ceil(n / blockSizeFor(n));
}
const perGiB = (dsSig / dsBytes) * 2 ** 30;
console.error(`signatures of the dataset: ${dsSig} bytes for ${dsBytes} bytes of files, ${(perGiB / MiB).toFixed(2)} MiB per GiB`);
const candidates = walk(mutDir)
  .map((p) => ({ p, rel: relative(mutDir, p), size: statSync(p).size }))
  .filter((f) => existsSync(join(dsDir, f.rel)))
  .sort((a, b) => b.size - a.size);
let pick = null;
for (const f of candidates) {
  if (!readFileSync(join(dsDir, f.rel)).equals(readFileSync(f.p))) {
    pick = f;
    break;
  }
}
if (!pick) throw new Error('no mutated file found');
const a = readFileSync(join(dsDir, pick.rel));
const b = readFileSync(pick.p);
console.error(`delta-micro: ${pick.rel}: ${a.length} → ${b.length} bytes`);

const sizes = [];
for (let bs = 2048; bs <= 65536; bs *= 2) {
  const s = signature(a, bs);
  const r = await time(() => deltaOps(parseSignature(s), b));
  const lit = r.result.reduce((n, op) => n + (op.op === 'literal' ? op.data.length : 0), 0);
  sizes.push({
    block: bs,
    chosen: bs === blockSizeFor(a.length),
    signature: s.length,
    delta: encodeDelta(r.result).length,
    literal: lit,
    ops: r.result.length,
  });
}
const work = mkdtempSync(join(tmpdir(), 'brickpost-delta-micro-'));
let rd = null;
try {
  if (spawnSync('rdiff', ['--version']).status === 0) {
    const [o, n, s, d] = ['old', 'new', 'sig', 'delta'].map((x) => join(work, x));
    writeFileSync(o, a);
    writeFileSync(n, b);
    const ts = await time(() => execFileSync('rdiff', ['signature', o, s]));
    const td = await time(() => execFileSync('rdiff', ['delta', s, n, d]));
    rd = { signature: statSync(s).size, delta: statSync(d).size, signature_s: +ts.wall.toFixed(3), delta_s: +td.wall.toFixed(3) };
  } else {
    console.error('delta-micro: rdiff not installed, no comparison');
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.error('block    signature        delta      literal  ops');
for (const r of sizes) {
  console.error(
    `${String(r.block).padStart(6)}${r.chosen ? '*' : ' '} ${String(r.signature).padStart(10)} ${String(r.delta).padStart(12)} ${String(r.literal).padStart(12)} ${String(r.ops).padStart(4)}`,
  );
}
if (rd)
  console.error(`rdiff   ${String(rd.signature).padStart(10)} ${String(rd.delta).padStart(12)}   (signature ${rd.signature_s} s, delta ${rd.delta_s} s wall)`);

console.log(
  JSON.stringify(
    {
      mib: Number(values.mib),
      blockSize: B,
      loadavg: loadavg(),
      rows,
      datasetSignatures: { bytes: dsBytes, signatureBytes: dsSig, perGiB: Math.round(perGiB) },
      edited: { file: pick.rel, old: a.length, new: b.length, sizes, rdiff: rd },
    },
    null,
    2,
  ),
);
