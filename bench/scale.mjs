#!/usr/bin/env node
/**
 * Scenario `scale`: what brickpost costs per file, at several file counts.
 *
 *   node bench/run.mjs --scenario scale --files 100000,1000000 [--work DIR] [--keep] [--no-restic]
 *
 * For each count N, `make_dataset.py --files N` writes N files of 0-4 KiB
 * in nested folders (100 a folder), and brickpost runs on it: pack, keyless
 * verify, verify --deep, ingest, one file changed, incremental pack and
 * ingest, `ls --json` of the drive and `history` of the destination. restic
 * runs on the same tree in the same run (backup, restore, second backup
 * after the change) for ratios that survive a noisy machine. Every step runs
 * under lib/rusage.py (wall, CPU, peak RSS of the process tree).
 *
 * Printed per step: wall, µs per file, peak RSS, and the ratio to restic;
 * then the sizes that grow with the file count (the publisher's catalog,
 * the destination's state folder, the drive) per million files, and
 * whether time per file and peak RSS stayed flat across the counts.
 * Results go to bench/results/scale-<timestamp>.json.
 */
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { appendFileSync, existsSync, readFileSync, utimesSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { generateDataset, findMakeDataset } from './lib/dataset.mjs';
import { dropCaches, measure } from './lib/measure.mjs';
import brickpost from './tools/brickpost.mjs';
import restic from './tools/restic.mjs';
import { cliArgv, nodeFlags } from './lib/cli.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const log = (msg) => process.stderr.write(`bench: ${msg}\n`);

/** Apparent bytes under PATH (a file or a folder), by du. */
function bytesOf(path) {
  if (!existsSync(path)) return 0;
  const r = spawnSync('du', ['-sb', path], { encoding: 'utf8' });
  return Number((r.stdout || '0').split('\t')[0]);
}

/** Last summary (or error) event of an NDJSON stdout file. */
function summaryOf(file) {
  let last = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const ev = JSON.parse(line);
      if (ev.type === 'summary' || ev.type === 'error') last = ev;
    } catch {
      /* not an event */
    }
  }
  return last;
}

/** Lines of FILE (the ls --json listing), counted without holding the file. */
function countLines(file) {
  const r = spawnSync('wc', ['-l', file], { encoding: 'utf8' });
  return Number((r.stdout || '0').trim().split(/\s+/)[0]);
}

/** Changes one file of TREE (the same one for every tool): new bytes, a newer mtime. */
function changeOneFile(tree) {
  const file = join(tree, 's00', 't00', 'u0', 'f0000000.txt');
  appendFileSync(file, 'one more line, changed for the incremental shipment\n');
  const t = new Date('2025-01-01T00:00:00Z');
  utimesSync(file, t, t);
  return file;
}

async function step(tool, op, spec, n, opts, work) {
  const cache = opts.warm ? 'warm' : dropCaches();
  const load = loadavg()[0];
  log(`${tool} ${n}: ${op} [${spec.label}] ...`);
  const stderr = join(work, `${tool}-${op}.stderr`);
  const r = await measure(spec.argv, {
    cwd: spec.cwd,
    env: spec.env,
    sync: spec.sync,
    stderr,
    stdout: spec.stdout ? join(work, `${tool}-${op}.stdout`) : undefined,
  });
  const rec = { tool, op, files: n, label: spec.label, cache, load, ...r, usPerFile: (r.wall * 1e6) / n, cpuUsPerFile: (r.cpu * 1e6) / n };
  delete rec.stdoutFile;
  const error =
    r.exitCode !== 0
      ? `exit code ${r.exitCode}: ${spawnSync('tail', ['-n', '5', stderr], { encoding: 'utf8' }).stdout.trim()}`
      : spec.check
        ? spec.check(r)
        : null;
  if (error) rec.error = error;
  log(`${tool} ${n}: ${op} ${error ? `FAILED (${error})` : 'ok'} in ${r.wall.toFixed(1)} s, ${rec.treeRssMB} MB`);
  return { rec, stdoutFile: r.stdoutFile };
}

/** Every step at one file count; returns the step records and the sizes. */
async function atCount(n, opts) {
  const work = await mkdtemp(join(opts.workRoot, `scale-${n}-`));
  const tree = join(work, 'tree');
  log(`generating ${n} small files in ${tree} ...`);
  const summary = await generateDataset(findMakeDataset(repoRoot), tree, { files: n, seed: 1 });
  const ctx = { repoRoot, src: tree, dataset: tree, datasetBytes: summary.bytes, work: join(work, 'brickpost') };
  await mkdir(ctx.work, { recursive: true });
  const steps = [];
  const bp = await brickpost.setup(ctx);
  const run = async (op, spec) => {
    const { rec, stdoutFile } = await step('brickpost', op, spec, n, opts, work);
    steps.push(rec);
    return { rec, stdoutFile };
  };
  const ops = brickpost.ops;
  await run('pack', ops.pack(bp, ctx));
  await run('verify', ops.verify(bp, ctx));
  await run('verify-deep', ops['verify-deep'](bp, ctx));
  const ing = await run('ingest', ops.ingest(bp, ctx));
  if (!ing.rec.error) {
    const files = summaryOf(ing.stdoutFile)?.result?.files;
    if (files !== n) ing.rec.error = `ingest reports ${files} files, the tree has ${n}`;
  }
  const lsOut = join(work, 'ls.ndjson');
  const ls = await run('ls', {
    label: 'ls --json',
    argv: ['bash', '-c', `${cliArgv().join(' ')} --home ${bp.sub} ls ${bp.drive} --json > ${lsOut}`],
  });
  if (!ls.rec.error && countLines(lsOut) < n) ls.rec.error = `ls listed ${countLines(lsOut)} entries, the tree has ${n} files`;
  await rm(lsOut, { force: true });
  // The desktop's drive view: the first look builds the browse index (one pass over the manifest), later looks are queries.
  const view = (mode, check) => ({
    label: `listFolder ${mode}`,
    argv: [process.execPath, ...nodeFlags(), join(repoRoot, 'bench/lib/drive-view.mjs'), bp.sub, bp.drive, mode, ...(mode === 'again' ? [DEEP_FOLDER] : [])],
    stdout: true,
    check: (r) => {
      try {
        return check(JSON.parse(readFileSync(r.stdoutFile, 'utf8')).calls);
      } catch (e) {
        return `no listing printed (${e.message})`;
      }
    },
  });
  const built = await run(
    'view-build',
    view('build', ([root]) => (root?.built && root.entries > 0 ? null : `the first look: ${JSON.stringify(root)}`)),
  );
  const again = await run(
    'view-again',
    view('again', (c) => (c.length === 2 && c.every((x) => !x.built && x.entries > 0) ? null : `later looks: ${JSON.stringify(c)}`)),
  );
  for (const v of [built, again]) if (!v.rec.error) v.rec.calls = JSON.parse(readFileSync(v.stdoutFile, 'utf8')).calls;
  await run('history', {
    label: 'history --json',
    argv: [...cliArgv(), '--home', bp.sub, 'history', bp.dest, '--json'],
    stdout: true,
  });
  const sizes = {
    publisherCatalog: bytesOf(join(bp.pub, 'catalog.sqlite')) + bytesOf(join(bp.pub, 'catalog.sqlite-wal')),
    subscriberCatalog: bytesOf(join(bp.sub, 'catalog.sqlite')) + bytesOf(join(bp.sub, 'catalog.sqlite-wal')),
    destState: bytesOf(join(bp.dest, '.brickpost')),
    browseIndex: bytesOf(join(bp.sub, 'cache', 'browse')),
    drive: bytesOf(bp.drive),
    tree: summary.bytes,
  };
  let rs = null;
  if (opts.restic) {
    const rctx = { ...ctx, work: join(work, 'restic') };
    await mkdir(rctx.work, { recursive: true });
    rs = await restic.setup(rctx);
    for (const op of ['pack', 'ingest']) steps.push((await step('restic', op, restic.ops[op](rs, rctx), n, opts, work)).rec);
    sizes.resticRepo = bytesOf(rs.repo);
  }
  changeOneFile(tree);
  await run('pack-incr', ops['pack-incr'](bp, ctx));
  await run('ingest-incr', ops['ingest-incr'](bp, ctx));
  if (rs) steps.push((await step('restic', 'pack-incr', restic.ops['pack-incr'](rs, { ...ctx, work: join(work, 'restic') }), n, opts, work)).rec);
  sizes.destStateAfterTwo = bytesOf(join(bp.dest, '.brickpost'));
  if (!opts.keep) await rm(work, { recursive: true, force: true });
  else log(`kept ${work}`);
  return { files: n, bytes: summary.bytes, steps, sizes };
}

const mb = (b) => (b / 1e6).toFixed(1);

/** A folder of make_dataset.py's small-files tree, three levels down (the drive view's deep look). */
const DEEP_FOLDER = 's00/t00/u0';

export function printRuns(runs) {
  const print = (s = '') => process.stdout.write(s + '\n');
  print('\nbrickpost bench: scenario scale (small files, 0-4 KiB, 100 a folder)');
  print(
    `machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}; µs/file = wall / files, CPU µs/file = CPU seconds / files`,
  );
  print(
    `\n${'files'.padStart(9)}  ${'tool'.padEnd(9)} ${'op'.padEnd(12)} ${'wall s'.padStart(8)} ${'µs/file'.padStart(8)} ${'CPU s'.padStart(8)} ${'CPU µs/f'.padStart(8)} ${'RSS MB'.padStart(7)}  vs restic (time; CPU)`,
  );
  for (const run of runs) {
    for (const s of run.steps) {
      const peer = s.tool === 'brickpost' ? run.steps.find((x) => x.tool === 'restic' && x.op === s.op && !x.error) : null;
      const vs = peer && !s.error ? `${(s.wall / peer.wall).toFixed(2)}× restic's time; ${(s.cpu / peer.cpu).toFixed(2)}× its CPU` : '';
      print(
        `${String(run.files).padStart(9)}  ${s.tool.padEnd(9)} ${s.op.padEnd(12)} ${s.wall.toFixed(1).padStart(8)} ${s.usPerFile.toFixed(0).padStart(8)} ${s.cpu.toFixed(1).padStart(8)} ${(s.cpuUsPerFile ?? (s.cpu * 1e6) / run.files).toFixed(0).padStart(8)} ${String(s.treeRssMB).padStart(7)}  ${s.error ? `FAILED: ${s.error}` : vs}`,
      );
    }
  }
  print('\ndrive view (Engine.listFolder, in the process; the first look builds the browse index):');
  for (const run of runs) {
    const calls = ['view-build', 'view-again'].flatMap((op) => run.steps.find((x) => x.op === op)?.calls ?? []);
    if (calls.length < 3) continue;
    const [first, root, deep] = calls;
    print(
      `  ${String(run.files).padStart(9)} files: first look ${first.ms} ms (${((first.ms * 1e3) / run.files).toFixed(1)} µs/file), then the root ${root.ms} ms, ${DEEP_FOLDER} ${deep.ms} ms (${deep.entries} entries)`,
    );
  }
  print('\nsizes per million files (MB):');
  for (const run of runs) {
    const per = (b) => mb((b * 1e6) / run.files);
    const z = run.sizes;
    print(
      `  ${String(run.files).padStart(9)} files: publisher catalog ${per(z.publisherCatalog)}, browse index ${per(z.browseIndex ?? 0)}, destination state ${per(z.destState)} (after 2 shipments ${per(z.destStateAfterTwo)}), drive ${per(z.drive)}${z.resticRepo ? `, restic repository ${per(z.resticRepo)}` : ''}, tree ${per(z.tree)}`,
    );
  }
  if (runs.length > 1) {
    const first = runs[0],
      last = runs[runs.length - 1];
    // Judged on CPU per file, the work done: wall time per file also moves with what else the machine runs (the load is in the results file).
    print(`\nflatness, ${first.files} → ${last.files} files (ratio of CPU µs/file, wall µs/file beside it; RSS MB):`);
    const cpuPer = (x, n) => x.cpuUsPerFile ?? (x.cpu * 1e6) / n;
    for (const s of last.steps.filter((x) => x.tool === 'brickpost')) {
      const a = first.steps.find((x) => x.tool === s.tool && x.op === s.op);
      if (!a || a.error || s.error) continue;
      const r = cpuPer(s, last.files) / cpuPer(a, first.files);
      print(
        `  ${s.op.padEnd(12)} ${r.toFixed(2)}× ${r <= 1.5 ? 'flat' : 'GROWS'} (wall ${(s.usPerFile / a.usPerFile).toFixed(2)}×); RSS ${a.treeRssMB} → ${s.treeRssMB} ${s.treeRssMB <= 200 ? '(≤ 200)' : '(> 200 MB)'}`,
      );
    }
  }
}

export async function runScale(opts) {
  const counts = String(opts.files ?? '100000')
    .split(',')
    .map((x) => Number(x.trim()));
  if (counts.some((c) => !Number.isSafeInteger(c) || c < 1)) throw new Error(`--files wants counts like 100000,1000000, not ${opts.files}`);
  const restic = spawnSync('bash', ['-c', 'command -v restic']).status === 0 && !opts['no-restic'];
  if (!restic) log('restic: skipped (not installed or --no-restic): no ratios');
  const workRoot = opts.work ? resolve(opts.work) : await mkdtemp(join(tmpdir(), 'brickpost-scale-'));
  await mkdir(workRoot, { recursive: true });
  const runs = [];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(here, 'results', `scale-${stamp}.json`);
  await mkdir(dirname(file), { recursive: true });
  try {
    for (const n of counts) {
      runs.push(await atCount(n, { ...opts, restic, workRoot }));
      await writeFile(
        file,
        JSON.stringify(
          {
            date: new Date().toISOString(),
            scenario: 'scale',
            machine: { cores: cpus().length, memBytes: totalmem(), kernel: release(), node: process.version },
            runs,
          },
          null,
          2,
        ) + '\n',
      );
    }
  } finally {
    if (!opts.work && !opts.keep) await rm(workRoot, { recursive: true, force: true });
  }
  printRuns(runs);
  process.stdout.write(`\nresults: ${file}\n`);
  return runs.some((r) => r.steps.some((s) => s.error)) ? 1 : 0;
}
