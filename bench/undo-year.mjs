#!/usr/bin/env node
/**
 * What a year of monthly shipments kept for rollback costs on a
 * subscriber's disk: a dataset (make_dataset.py, default 200M) plus two
 * large files, shipped once and then 12 times, each time with
 * make_dataset.py --mutate (a few % of the files) and a 16-byte change in
 * each large file; every shipment ingested with --keep-undo all. Prints
 * the undo data the chunk undo store holds (history's undoBytes, and the
 * store's size on disk) against what whole-file undo areas would hold:
 * the sum of the sizes of the files each shipment replaced or deleted.
 *
 *     node bench/undo-year.mjs [--size 200M] [--big 64] [--months 12] [--keep DIR]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'apps', 'cli', 'bin', 'brickpost.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SIZE = arg('size', '200M');
const BIG_MB = Number(arg('big', '64'));
const MONTHS = Number(arg('months', '12'));
const work = arg('keep') ?? mkdtempSync(join(tmpdir(), 'bp-undo-year-'));

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stdout?.slice(-2000)}\n${r.stderr?.slice(-2000)}`);
  return r.stdout;
}
const bp = (home, args) => run(process.execPath, [CLI, '--home', home, ...args]);

/** path → [size, sha256] of every regular file under root. */
function files(root) {
  const out = new Map();
  const walk = (dir, rel) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, r);
      else if (e.isFile()) out.set(r, [lstatSync(p).size, createHash('sha256').update(readFileSync(p)).digest('hex')]);
    }
  };
  walk(root, '');
  return out;
}

function bytes(seed, n) {
  const out = Buffer.alloc(n);
  for (let o = 0, i = 0; o < n; o += 32, i++) createHash('sha256').update(`${seed}/${i}`).digest().copy(out, o);
  return out;
}

const du = (dir) => Number(run('du', ['-sb', dir]).split('\t')[0]);

const src = join(work, 'src');
const dest = join(work, 'dest');
const pub = join(work, 'pub');
const sub = join(work, 'sub');
run('python3', [join(ROOT, 'bench', 'make_dataset.py'), src, '--size', SIZE, '--seed', '7', '-q']);
const bigs = ['big/model.bin', 'big/table.bin'];
mkdirSync(join(src, 'big'), { recursive: true });
for (const b of bigs) writeFileSync(join(src, b), bytes(b, BIG_MB << 20));
for (const [h, n] of [
  [pub, 'pub'],
  [sub, 'sub'],
])
  bp(h, ['keygen', '--name', n]);
bp(sub, ['trust', 'add', join(pub, 'minisign.pub'), '--name', 'pub']);
const recipient = JSON.parse(bp(sub, ['whoami', '--json'])).recipient;

let wholeFile = 0;
let prev = null;
const rows = [];
for (let m = 0; m <= MONTHS; m++) {
  if (m > 0) {
    run('python3', [join(ROOT, 'bench', 'make_dataset.py'), src, '--mutate', '3', '--seed', String(100 + m), '-q']);
    for (const [i, b] of bigs.entries()) {
      const fd = openSync(join(src, b), 'r+');
      writeSync(fd, bytes(`${b}${m}`, 16), 0, 16, ((m * 7 + i * 13) % 60) * (1 << 20) + 4321);
      closeSync(fd);
    }
  }
  const now = files(src);
  // Whole-file undo keeps every file the shipment replaces or deletes, at its old size.
  let replaced = 0;
  if (prev) for (const [p, [size, h]] of prev) if (now.get(p)?.[1] !== h) replaced += size;
  wholeFile += replaced;
  prev = now;
  const drive = join(work, `drive${m}`);
  mkdirSync(drive);
  bp(pub, ['--quiet', 'pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'year']);
  bp(sub, ['--quiet', 'ingest', drive, dest, ...(m === 0 ? ['--keep-undo', 'all'] : [])]);
  rmSync(drive, { recursive: true, force: true });
  rows.push({ month: m, replacedBytes: replaced });
  process.stderr.write(`month ${m}: replaced ${replaced} bytes\n`);
}
const h = JSON.parse(bp(sub, ['history', dest, '--json']));
const datasetBytes = [...prev.values()].reduce((n, [s]) => n + s, 0);
const result = {
  dataset: { size: SIZE, bigFiles: bigs.length, bigFileBytes: BIG_MB << 20, bytes: datasetBytes, months: MONTHS },
  kept: h.shipments.filter((s) => s.kept).length,
  wholeFileUndoBytes: wholeFile,
  chunkUndoBytes: h.undoBytes,
  storeOnDisk: du(join(dest, '.brickpost', 'undo-chunks')),
  ratio: Number((h.undoBytes / wholeFile).toFixed(3)),
  perShipment: h.shipments.map((s, i) => ({ seq: s.seq, undoBytes: s.undoBytes, replacedBytes: rows[i].replacedBytes })),
};
console.log(JSON.stringify(result, null, 1));
if (!arg('keep')) rmSync(work, { recursive: true, force: true });
