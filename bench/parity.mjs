#!/usr/bin/env node
/**
 * The parity codec (packages/engine/src/parity) against par2 (par2cmdline),
 * at the same redundancy, on the same incompressible file, in one run.
 *
 *   npx tsc -b && node bench/parity.mjs [--size 512M] [--work DIR] [--par2-max 256M] [--json]
 *
 * Codes (k, m): (2, 1), (3, 2) and (200, 4), the last the per-drive
 * recovery (2 %). Ours reads the file in stripes of k shares of 1 MiB (the
 * last stripe zero-padded, shares wholly past the end left out), encodes
 * the m parity shares and writes them to a file; then it rebuilds data
 * share 0 of every stripe from the k − 1 other data shares and parity
 * share k, writes it to a file, and checks it (untimed). par2 creates
 * recovery data at the same percentage with 1 MiB blocks (default
 * threads), then repairs the file after the same fraction of its blocks
 * was damaged (every k-th block, 1/k of them, as ours loses 1 share in k).
 * par2's work grows with the square of the block count at 50 % and 67 %,
 * so those runs use the first --par2-max bytes when the file is larger
 * (the table says so); MB/s is always of the bytes a step covered.
 *
 * MB means 10^6 bytes; MB/s divides the data bytes by wall seconds. Both
 * read the file from the page cache (just written: warm for both) and
 * write into it: before each timed step `sync` (untimed) flushes what
 * earlier steps wrote, so that no step waits on another's writeback, and no
 * step's own output is flushed. par2 is timed with bench/lib/measure.mjs,
 * ours in this process, best of 2 runs (par2 runs once: its time is its
 * arithmetic, ours is mostly copying, which a first run into fresh page
 * cache memory can slow several times on a VM). Also measured:
 * combine with 3 sources in memory, WebAssembly SIMD against the JS byte
 * loop it falls back to (MB/s of source bytes).
 *
 * Importable: parityBench({ work, size, log }) returns the result object,
 * parityTable(result) formats it.
 */
import { spawnSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { measure, versionOf } from './lib/measure.mjs';
import { best, time } from './lib/micro.mjs';

const MiB = 1 << 20;
const SHARE = MiB;
const CODES = [
  { k: 2, m: 1, pct: 50 },
  { k: 3, m: 2, pct: 67 },
  { k: 200, m: 4, pct: 2 },
];
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const distDir = join(root, 'packages/engine/dist/src/parity');

/** Bytes of "512M", "1G", "64K" or a plain number. */
export function parseSize(s) {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)i?B?$/i.exec(String(s).trim());
  if (!m) throw new Error(`not a size: ${s}`);
  return Math.round(Number(m[1]) * 1024 ** ' KMG'.indexOf(m[2].toUpperCase() || ' '));
}

/** Reads into buf[0 … len) from position pos until full or end of file; returns the bytes read. */
function readFull(fd, buf, len, pos) {
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, got, len - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

function writeFull(fd, buf) {
  for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at);
}

/** Writes `size` bytes of AES-128-CTR keystream (fixed key) to PATH. */
function makeData(path, size) {
  const c = createCipheriv('aes-128-ctr', Buffer.alloc(16, 0x5a), Buffer.alloc(16));
  const zeros = Buffer.alloc(16 * MiB);
  const fd = openSync(path, 'w');
  try {
    for (let at = 0; at < size; at += zeros.length) writeFull(fd, c.update(zeros.subarray(0, Math.min(zeros.length, size - at))));
  } finally {
    closeSync(fd);
  }
}

/** Equal-size views of one buffer: the shares of a stripe. */
const views = (buf, n) => Array.from({ length: n }, (_, i) => buf.subarray(i * SHARE, (i + 1) * SHARE));

/** Encodes DATA (size bytes) into PARITY; returns the seconds spent in the codec. */
function encodeFile(rs, data, parity, size, k, m) {
  const stripe = Buffer.alloc(k * SHARE);
  const out = Buffer.alloc(m * SHARE);
  const [shares, rows] = [views(stripe, k), views(out, m)];
  const [fd, pfd] = [openSync(data, 'r'), openSync(parity, 'w')];
  let codec = 0;
  try {
    for (let at = 0; at < size; at += k * SHARE) {
      const n = readFull(fd, stripe, k * SHARE, at);
      const used = Math.ceil(n / SHARE);
      stripe.fill(0, n, used * SHARE);
      const t0 = performance.now();
      rs.encodeParity(k, used === k ? shares : shares.slice(0, used), rows, SHARE);
      codec += performance.now() - t0;
      writeFull(pfd, out);
    }
  } finally {
    closeSync(fd);
    closeSync(pfd);
  }
  return codec / 1000;
}

/** Rebuilds data share 0 of every stripe into OUT from shares 1 … k−1 and parity share k; returns codec seconds. */
function rebuildFile(rs, data, parity, outPath, size, k, m) {
  const present = [...Array.from({ length: k - 1 }, (_, i) => i + 1), k];
  const coefs = rs.reconstructionMatrix(k, m, present, [0])[0];
  const buf = Buffer.alloc(k * SHARE);
  const srcs = views(buf, k);
  const lost = Buffer.alloc(SHARE);
  const [fd, pfd, ofd] = [openSync(data, 'r'), openSync(parity, 'r'), openSync(outPath, 'w')];
  let codec = 0;
  try {
    for (let s = 0, at = 0; at < size; s++, at += k * SHARE) {
      const bytes = Math.min(k * SHARE, size - at);
      const used = Math.ceil(bytes / SHARE);
      const n = readFull(fd, buf, (used - 1) * SHARE, at + SHARE);
      buf.fill(0, n, (used - 1) * SHARE);
      readFull(pfd, srcs[k - 1], SHARE, s * m * SHARE);
      const pick = (a) => (used === k ? a : [...a.slice(0, used - 1), a[k - 1]]);
      const t0 = performance.now();
      rs.combine(lost, pick(srcs), pick(coefs), SHARE);
      codec += performance.now() - t0;
      writeFull(ofd, lost.subarray(0, Math.min(SHARE, bytes)));
    }
  } finally {
    [fd, pfd, ofd].forEach(closeSync);
  }
  return codec / 1000;
}

/** Throws unless OUT holds data share 0 of every stripe of DATA. */
function checkRebuilt(data, outPath, size, k) {
  const [a, b] = [Buffer.alloc(SHARE), Buffer.alloc(SHARE)];
  const [fd, ofd] = [openSync(data, 'r'), openSync(outPath, 'r')];
  try {
    for (let s = 0, at = 0; at < size; s++, at += k * SHARE) {
      const n = readFull(fd, a, SHARE, at);
      if (readFull(ofd, b, SHARE, s * SHARE) < n || !a.subarray(0, n).equals(b.subarray(0, n))) {
        throw new Error(`(${k}, *) rebuilt share 0 of stripe ${s} is wrong`);
      }
    }
  } finally {
    closeSync(fd);
    closeSync(ofd);
  }
}

/** Copies the first BYTES of SRC to DST. */
function copyHead(src, dst, bytes) {
  const buf = Buffer.alloc(16 * MiB);
  const [fd, ofd] = [openSync(src, 'r'), openSync(dst, 'w')];
  try {
    for (let at = 0; at < bytes;) {
      const n = readFull(fd, buf, Math.min(buf.length, bytes - at), at);
      writeFull(ofd, buf.subarray(0, n));
      at += n;
    }
  } finally {
    closeSync(fd);
    closeSync(ofd);
  }
}

/** par2 create, damage of every k-th block, par2 repair, on the first BYTES of DATA. */
async function par2Run(dir, data, bytes, pct, k) {
  const file = join(dir, 'p2.bin');
  copyHead(data, file, bytes);
  const stderr = join(dir, 'par2.err');
  spawnSync('sync');
  const create = await measure(['par2', 'create', '-qq', `-r${pct}`, '-n1', `-s${SHARE}`, 'p2.par2', 'p2.bin'], { cwd: dir, stderr });
  if (create.exitCode !== 0) throw new Error(`par2 create -r${pct} failed (exit ${create.exitCode})`);
  const fd = openSync(file, 'r+');
  let damaged = 0;
  for (let at = 0; at < bytes; at += k * SHARE, damaged++) writeSync(fd, Buffer.alloc(Math.min(4096, bytes - at)), 0, undefined, at);
  closeSync(fd);
  spawnSync('sync');
  const repair = await measure(['par2', 'repair', '-qq', 'p2.par2'], { cwd: dir, stderr });
  if (repair.exitCode !== 0) throw new Error(`par2 repair after damaging ${damaged} blocks failed (exit ${repair.exitCode})`);
  const [a, b] = [Buffer.alloc(16 * MiB), Buffer.alloc(16 * MiB)];
  const [fa, fb] = [openSync(data, 'r'), openSync(file, 'r')];
  try {
    for (let at = 0; at < bytes; at += a.length) {
      const n = readFull(fa, a, Math.min(a.length, bytes - at), at);
      if (readFull(fb, b, n, at) !== n || !a.subarray(0, n).equals(b.subarray(0, n))) throw new Error('par2 repaired the wrong bytes');
    }
  } finally {
    closeSync(fa);
    closeSync(fb);
  }
  return { bytes, damagedBlocks: damaged, createWall: create.wall, createCpu: create.cpu, repairWall: repair.wall, repairCpu: repair.cpu };
}

/** The better of two timed runs of FN, each after an untimed `sync`. */
async function flushedBest(fn) {
  let top = null;
  for (let i = 0; i < 2; i++) {
    spawnSync('sync');
    const r = await time(fn);
    if (!top || r.wall < top.wall) top = r;
  }
  return top;
}

/** MB/s of source bytes of combine with 3 sources of 4 MiB: the compiled codec, and the JS byte loop. */
async function combine3(rs, gf) {
  const n = 4 * MiB;
  const c = createCipheriv('aes-128-ctr', Buffer.alloc(16, 1), Buffer.alloc(16));
  const srcs = [0, 1, 2].map(() => c.update(Buffer.alloc(n)));
  const coefs = [0x53, 0x8e, 0xca];
  const dst = new Uint8Array(n);
  const reps = 16;
  const wasm = await best(5, () => {
    for (let r = 0; r < reps; r++) rs.combine(dst, srcs, coefs, n);
  });
  const js = await best(3, () => {
    dst.fill(0);
    srcs.forEach((s, i) => gf.mulAddBytes(dst, s, coefs[i], n));
  });
  const mbps = (bytes, t) => Math.round(bytes / t.wall / 1e6);
  return { wasmMBps: mbps(3 * n * reps, wasm), jsMBps: mbps(3 * n, js) };
}

/**
 * Runs the whole comparison in a fresh folder under WORK (removed after):
 * SIZE bytes (a number or "512M") of data. LOG receives progress lines.
 * Returns { size, shareBytes, par2, loadavg, combine3, codes: [...] }.
 * Throws when the engine is not built, par2 is missing or a step fails.
 */
export async function parityBench({ work = tmpdir(), size = '512M', log = () => {}, par2Max = '256M' } = {}) {
  const bytes = parseSize(size);
  const cap = parseSize(par2Max);
  if (!existsSync(join(distDir, 'rs.js'))) throw new Error('build first: npx tsc -b');
  const par2 = versionOf('par2', ['--version']);
  if (!par2) throw new Error('par2 is not installed');
  const rs = await import(pathToFileURL(join(distDir, 'rs.js')).href);
  const gf = await import(pathToFileURL(join(distDir, 'gf.js')).href);
  const dir = await mkdtemp(join(work, 'parity-'));
  try {
    log('combine with 3 sources, in memory ...');
    const c3 = await combine3(rs, gf);
    const data = join(dir, 'data.bin');
    log(`writing ${bytes} bytes of data ...`);
    makeData(data, bytes);
    const codes = [];
    for (const { k, m, pct } of CODES) {
      const parity = join(dir, 'parity.bin');
      const rebuilt = join(dir, 'rebuilt.bin');
      log(`(${k}, ${m}): encode ...`);
      const enc = await flushedBest(() => encodeFile(rs, data, parity, bytes, k, m));
      log(`(${k}, ${m}): rebuild share 0 of every stripe ...`);
      const rec = await flushedBest(() => rebuildFile(rs, data, parity, rebuilt, bytes, k, m));
      checkRebuilt(data, rebuilt, bytes, k);
      await rm(parity);
      await rm(rebuilt);
      const slice = pct >= 50 ? Math.min(bytes, cap) : bytes;
      log(`(${k}, ${m}): par2 -r${pct} on ${slice} bytes ...`);
      const p2 = await par2Run(await mkdtemp(join(dir, 'par2-')), data, slice, pct, k);
      const mbps = (n, s) => n / s / 1e6;
      const row = {
        code: `(${k}, ${m})`,
        k,
        m,
        redundancyPct: pct,
        encode: { wall: enc.wall, codecS: enc.result, MBps: mbps(bytes, enc.wall), codecMBps: mbps(bytes, enc.result) },
        reconstruct: { wall: rec.wall, codecS: rec.result, MBps: mbps(bytes, rec.wall), codecMBps: mbps(bytes, rec.result) },
        par2: { ...p2, sliced: slice < bytes, createMBps: mbps(slice, p2.createWall), repairMBps: mbps(slice, p2.repairWall) },
      };
      row.encodeRatio = row.encode.MBps / row.par2.createMBps;
      row.reconstructRatio = row.reconstruct.MBps / row.par2.repairMBps;
      codes.push(row);
    }
    return { size: bytes, shareBytes: SHARE, par2, loadavg: loadavg(), combine3: c3, codes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The result of parityBench as a text table, with notes. */
export function parityTable(r) {
  const f = (x) => x.toFixed(0);
  const head = ['code', 'redundancy', 'encode MB/s', 'par2 create MB/s', 'ratio', 'rebuild MB/s', 'par2 repair MB/s', 'ratio'];
  const rows = r.codes.map((c) => [
    c.code,
    `${c.redundancyPct} %`,
    f(c.encode.MBps),
    f(c.par2.createMBps) + (c.par2.sliced ? '*' : ''),
    `${c.encodeRatio.toFixed(1)}x`,
    f(c.reconstruct.MBps),
    f(c.par2.repairMBps) + (c.par2.sliced ? '*' : ''),
    `${c.reconstructRatio.toFixed(1)}x`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const notes = [
    `data: ${(r.size / 1e6).toFixed(0)} MB, shares of ${r.shareBytes / MiB} MiB; ${r.par2}, blocks of 1 MiB; warm page cache; load ${r.loadavg.map((x) => x.toFixed(2)).join(' ')}`,
    ...r.codes
      .filter((c) => c.par2.sliced)
      .map((c) => `* par2 ${c.code} ran on the first ${(c.par2.bytes / 1e6).toFixed(0)} MB only (its work grows with the square of the block count)`),
    ...r.codes.map(
      (c) =>
        `${c.code}: codec alone ${f(c.encode.codecMBps)} MB/s encode, ${f(c.reconstruct.codecMBps)} MB/s rebuild; par2 repair had ${c.par2.damagedBlocks} damaged blocks; encode ≥ 5× par2 create: ${c.encodeRatio >= 5 ? 'yes' : 'NO'}`,
    ),
    `combine with 3 sources (MB/s of source bytes): WebAssembly SIMD ${r.combine3.wasmMBps}, JS byte loop ${r.combine3.jsMBps} (${(r.combine3.wasmMBps / r.combine3.jsMBps).toFixed(1)}x)`,
  ];
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), '', ...notes].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: '512M' },
      work: { type: 'string', default: tmpdir() },
      'par2-max': { type: 'string', default: '256M' },
      json: { type: 'boolean', default: false },
    },
  });
  try {
    const log = (msg) => process.stderr.write(`parity: ${msg}\n`);
    const r = await parityBench({ work: values.work, size: values.size, par2Max: values['par2-max'], log });
    process.stdout.write(`${values.json ? JSON.stringify(r, null, 2) : parityTable(r)}\n`);
  } catch (e) {
    process.stderr.write(`parity: error: ${e.message}\n`);
    process.exit(1);
  }
}
