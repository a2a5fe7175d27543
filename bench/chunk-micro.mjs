#!/usr/bin/env node
/**
 * Microbenchmark of the chunk stage (packages/engine/src/chunk) on the
 * 300 MiB benchmark dataset: MB/s of findCut alone, HMAC alone, encodeChunk
 * on one thread, the worker pipeline on every core (raw chunks moved or
 * copied to the workers), and chunkFile feeding the pipeline end to end.
 *
 *   npx tsc -b && node bench/chunk-micro.mjs [--level 3] [--dataset DIR] [--size 300M]
 *
 * The dataset is DIR (default /tmp/brickpost-bench-ds-300M), made by
 * bench/make_dataset.py when missing. Files are read into memory
 * first, so the in-memory steps measure CPU only; the last step reads from
 * the page cache. MB means 10^6 bytes of raw input. "MB per CPU-second"
 * divides by the CPU time of the whole process (all threads), which stays
 * meaningful when other work shares the machine; wall MB/s does not.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { best, time } from './lib/micro.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const chunkMod = join(root, 'packages/engine/dist/src/chunk/index.js');
if (!existsSync(chunkMod)) {
  console.error('chunk-micro: build first: npx tsc -b');
  process.exit(2);
}
const { findCut, chunkId, chunkKey, encodeChunk, createChunkPipeline, chunkFile } = await import(chunkMod);

const { values } = parseArgs({
  options: {
    level: { type: 'string', default: '3' },
    dataset: { type: 'string', default: '/tmp/brickpost-bench-ds-300M' },
    size: { type: 'string', default: '300M' },
  },
});
const level = Number(values.level);
const dsDir = values.dataset;

if (!existsSync(dsDir)) {
  const script = join(root, 'bench', 'make_dataset.py');
  console.error(`chunk-micro: generating ${values.size} dataset in ${dsDir}`);
  const r = spawnSync('python3', [script, dsDir, '--size', values.size, '-q'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    console.error(`chunk-micro: make_dataset.py failed (${r.status ?? r.error?.message})`);
    process.exit(1);
  }
}

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

const paths = walk(dsDir).sort();
const files = paths.map((p) => readFileSync(p));
const total = files.reduce((a, f) => a + f.length, 0);

const rows = [];
function report(step, bytes, r, note = '') {
  const mbs = bytes / r.wall / 1e6;
  const perCpu = bytes / r.cpu / 1e6;
  rows.push({ step, 'MB/s': Math.round(mbs), 'MB/cpu-s': Math.round(perCpu), wall_s: r.wall.toFixed(3), cpu_s: r.cpu.toFixed(3), note });
  console.error(`${step}: ${Math.round(mbs)} MB/s wall, ${Math.round(perCpu)} MB per CPU-second ${note}`);
}

// 1. findCut over every file, whole file in memory.
const chunks = [];
const cutRun = await best(3, () => {
  chunks.length = 0;
  for (const f of files) {
    let s = 0;
    while (s < f.length) {
      const n = findCut(f, s, f.length, true);
      chunks.push(f.subarray(s, s + n));
      s += n;
    }
  }
});
const bigChunks = chunks.filter((c) => c.length >= 256 * 1024);
const meanBig = bigChunks.reduce((a, c) => a + c.length, 0) / Math.max(1, bigChunks.length);
report('findCut', total, cutRun, `${chunks.length} chunks, mean of chunks >= 256 KiB: ${(meanBig / 2 ** 20).toFixed(3)} MiB`);

// 2. HMAC-SHA256 chunk ids.
const key = chunkKey(Buffer.alloc(32, 7));
report(
  'chunkId (HMAC-SHA256)',
  total,
  await best(3, () => {
    for (const c of chunks) chunkId(key, c);
  }),
);

// 3. encodeChunk on this thread.
const enc = await best(2, () => {
  let out = 0;
  let raw = 0;
  for (const c of chunks) {
    const e = encodeChunk(c, level);
    out += e.frame.length;
    if (e.stored === 'raw') raw += c.length;
  }
  return { out, raw };
});
report(
  `encodeChunk level ${level}, 1 thread`,
  total,
  enc,
  `frames ${((enc.result.out / total) * 100).toFixed(1)} % of input, ${((enc.result.raw / total) * 100).toFixed(1)} % of input stored raw`,
);

// 4. The pipeline on every core, chunks already in memory.
const workers = availableParallelism();
for (const transfer of [true, false]) {
  const pipeline = createChunkPipeline({ key, level, workers, transfer });
  await pipeline.encode(Buffer.from('warm up'));
  const r = await best(2, async () => {
    // Moving a chunk empties the caller's Buffer, so each run gets fresh owned copies (made before timing would
    // double memory; copying here is part of what the caller would pay anyway when reading).
    const copies = transfer
      ? chunks.map((c) => {
          const b = Buffer.allocUnsafeSlow(c.length);
          c.copy(b);
          return b;
        })
      : chunks;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    for await (const e of pipeline.encodeAll(copies)) n += e.length;
    const c = process.cpuUsage(c0);
    return { n, inner: (performance.now() - t0) / 1000, innerCpu: (c.user + c.system) / 1e6 };
  });
  await pipeline.close();
  const inner = { wall: r.result.inner, cpu: r.result.innerCpu };
  report(`pipeline ${workers} workers, ${transfer ? 'transfer' : 'copy'}`, total, inner, 'chunks in memory');
}

// 5. chunkFile → pipeline, end to end from the page cache.
{
  const pipeline = createChunkPipeline({ key, level, workers });
  await pipeline.encode(Buffer.from('warm up'));
  const r = await best(2, async () => {
    async function* allChunks() {
      for (const p of paths) yield* chunkFile(p);
    }
    let n = 0;
    for await (const e of pipeline.encodeAll(allChunks())) n += e.length;
    return n;
  });
  await pipeline.close();
  report(`chunkFile + pipeline ${workers} workers`, total, r, 'all files in order, page cache');
}

console.log(JSON.stringify({ dataset: dsDir, bytes: total, files: files.length, level, workers, rows }, null, 2));
