#!/usr/bin/env node
/**
 * brickpost against the tools a user would pick instead (restic, borg, and
 * a tar | zstd | age pipeline; rclone for object storage), on one generated
 * dataset, in one run.
 *
 *   node bench/run.mjs [--size 2G] [--seed 1] [--source DIR] [--only brickpost,restic,rustic,borg,pipeline]
 *                      [--scenario initial,cores,sets,incremental,report,parallel,s3] [--repeat N] [--work DIR] [--warm] [--keep]
 *
 *   node bench/run.mjs --scenario scale --files 100000,1000000 [--work DIR] [--keep] [--no-restic]
 *
 * (the scale scenario measures per-file costs at several file counts: bench/scale.mjs)
 *
 * --source DIR benchmarks any folder instead of a generated dataset (it is
 * read, never changed: a scenario that changes the source works on a copy).
 *
 * Scenarios run one after the other on each tool's state: the incremental
 * scenario ships a mutated copy of the dataset on top of what the initial
 * one packed and ingested (naming it alone runs initial first).
 *
 * Every step runs under bench/lib/rusage.py (wall, CPU of the whole process
 * tree, peak RSS); writing steps are timed until their output is flushed to
 * disk. As root the page cache is dropped before each step, so all tools
 * read cold; otherwise (or with --warm) the run says it was warm. The
 * results are printed and written to bench/results/<timestamp>.json.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem, tmpdir } from 'node:os';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureDataset } from './lib/dataset.mjs';
import { dropCaches, measure } from './lib/measure.mjs';
import { compareTrees, treeBytes } from './lib/tree.mjs';
import { judgeTargets, ratioTable, stepsTable } from './lib/report.mjs';
import brickpost from './tools/brickpost.mjs';
import restic from './tools/restic.mjs';
import borg from './tools/borg.mjs';
import pipeline from './tools/pipeline.mjs';
import rustic from './tools/rustic.mjs';
import rclone from './tools/rclone.mjs';
import initial from './scenarios/initial.mjs';
import cores from './scenarios/cores.mjs';
import incremental from './scenarios/incremental.mjs';
import sets from './scenarios/sets.mjs';
import report from './scenarios/report.mjs';
import parallel from './scenarios/parallel.mjs';
import s3 from './scenarios/s3.mjs';

const TOOLS = [brickpost, restic, rustic, borg, pipeline, rclone];
const SCENARIOS = { initial, cores, sets, incremental, report, parallel, s3 };
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const log = (msg) => process.stderr.write(`bench: ${msg}\n`);

function options() {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: '2G' },
      seed: { type: 'string', default: '1' },
      only: { type: 'string' },
      source: { type: 'string' },
      scenario: { type: 'string', default: 'initial,cores,sets,incremental,report' },
      work: { type: 'string' },
      warm: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      repeat: { type: 'string', default: '1' },
      files: { type: 'string' },
      'no-restic': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: npm run bench -- [--size 2G] [--seed 1] [--source DIR] [--only ' +
        TOOLS.map((t) => t.name).join(',') +
        ']\n' +
        '                        [--scenario ' +
        Object.keys(SCENARIOS).join(',') +
        '] [--repeat N] [--work DIR] [--warm] [--keep]\n' +
        '       npm run bench -- --scenario scale --files 100000,1000000 [--work DIR] [--keep] [--no-restic] [--warm]\n',
    );
    process.exit(0);
  }
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : TOOLS.map((t) => t.name);
  const unknown = only.filter((n) => !TOOLS.some((t) => t.name === n));
  if (unknown.length) throw new Error(`unknown tool in --only: ${unknown.join(', ')}`);
  const names = values.scenario
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknownScenario = names.filter((n) => !SCENARIOS[n]);
  if (unknownScenario.length || !names.length) throw new Error(`unknown scenario: ${unknownScenario.join(', ') || values.scenario}`);
  // A scenario that builds on another one runs after it; order as in SCENARIOS.
  const wanted = new Set(names);
  for (const n of names) if (SCENARIOS[n].after) wanted.add(SCENARIOS[n].after);
  const scenarios = Object.values(SCENARIOS).filter((sc) => wanted.has(sc.name));
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat wants a positive integer, not ${values.repeat}`);
  return { ...values, seed: Number(values.seed), only, scenarios, repeat };
}

/** A folder to benchmark as it is (--source): its files and bytes. */
async function sourceFolder(dir) {
  const abs = resolve(dir);
  if (!existsSync(abs)) throw new Error(`--source ${dir} does not exist`);
  const t = await treeBytes(abs);
  return { dir: abs, summary: { files: t.files, bytes: t.bytes, source: abs }, reused: true };
}

function missingCommands(names) {
  return names.filter((n) => spawnSync('bash', ['-c', `command -v ${n}`]).status !== 0);
}

function tail(file) {
  const r = spawnSync('tail', ['-n', '15', file], { encoding: 'utf8' });
  return (r.stdout || '').trimEnd();
}

/** Apparent bytes of the files under DIR; 0 when it does not exist yet. */
async function dirBytes(dir) {
  return existsSync(dir) ? (await treeBytes(dir)).bytes : 0;
}

/**
 * Makes the working copy ctx.src the dataset again (a fresh `cp -a`,
 * reflinked where the file system can), unless it already is. Only used
 * when a scenario changes the source (ctx.src is then not the cache).
 */
function resetSource(ctx) {
  if (ctx.src === ctx.dataset || ctx.srcState === 'dataset') return;
  log(`copying the dataset to ${ctx.src} ...`);
  rmSync(ctx.src, { recursive: true, force: true });
  const r = spawnSync('cp', ['-a', '--reflink=auto', ctx.dataset, ctx.src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cp -a ${ctx.dataset} ${ctx.src} failed: ${(r.stderr || '').trim()}`);
  ctx.srcState = 'dataset';
}

/**
 * Puts the source in the state scenario SC's ops start from (untimed):
 * its `beforeOps` hook changes the working copy in place, so that every
 * tool sees the same change to the same files it packed before.
 */
async function enterScenario(sc, ctx) {
  if (!sc.beforeOps || ctx.srcState === sc.name) return;
  await sc.beforeOps(ctx, { log });
  ctx.srcState = sc.name;
}

/**
 * Runs one tool through the scenarios' ops, in order, on one state; returns
 * its step records. CTX is shared: scenario hooks update it.
 */
async function runTool(tool, scenarios, ctx, opts) {
  const records = [];
  const base = { tool: tool.name };
  const plan = scenarios.flatMap((sc) => sc.ops.map((op) => ({ sc, op })));
  // Scenarios of reference steps only (parallel) need no tool set up.
  if (plan.length === 0) return records;
  const missing = missingCommands(tool.requires);
  const reason = missing.length ? `not installed: ${missing.join(', ')}` : tool.unavailable(ctx);
  if (reason) {
    log(`${tool.name}: skipped (${reason})`);
    return plan.map(({ op }) => ({ ...base, op, skipped: reason }));
  }
  const work = await mkdtemp(join(opts.workRoot, `${tool.name}-`));
  try {
    resetSource(ctx);
    const state = await tool.setup({ ...ctx, work });
    const out = tool.outputs(state);
    let failed = null;
    for (const { sc, op } of plan) {
      const make = tool.ops[op];
      if (!make) {
        records.push({ ...base, op, na: true });
        continue;
      }
      if (failed) {
        records.push({ ...base, op, skipped: `after ${failed} failed` });
        continue;
      }
      await enterScenario(sc, ctx);
      const spec = make(state, { ...ctx, work });
      // A pack's bytes on drive are what it added to its drive or repository.
      const drive = spec.drive ?? (op === 'pack' ? out.drive : null);
      const restored = spec.restored ?? (op.startsWith('ingest') ? out.restored : null);
      const driveBefore = drive ? await dirBytes(drive) : 0;
      const cache = opts.warm ? 'warm' : dropCaches();
      const load = loadavg()[0];
      log(`${tool.name}: ${op} [${spec.label}] (${cache}) ...`);
      const stderr = join(work, `${op}.stderr`);
      const r = await measure(spec.argv, {
        cwd: spec.cwd,
        env: spec.env,
        sync: spec.sync,
        stderr,
        stdout: spec.stdout ? join(work, `${op}.stdout`) : undefined,
      });
      const rec = { ...base, op, label: spec.label, cache, load, ...r, mbps: ctx.datasetBytes / 1e6 / r.wall };
      delete rec.stdoutFile;
      if (spec.details) Object.assign(rec, spec.details(r));
      const error = r.exitCode !== 0 ? `exit code ${r.exitCode}` : spec.check ? spec.check(r) : null;
      if (error) {
        rec.error = error;
        failed = op;
        log(`${tool.name}: ${op} failed: ${error}\n${tail(stderr)}`);
      } else {
        if (drive) rec.bytesOnDrive = (await dirBytes(drive)) - driveBefore;
        if (restored) {
          const cmp = await compareTrees(ctx.src, restored, { exclude: out.exclude });
          rec.correct = cmp.equal;
          if (!cmp.equal) {
            rec.differences = cmp.diffs;
            log(`${tool.name}: restored tree differs from the source:\n  ${cmp.diffs.join('\n  ')}`);
          }
        }
      }
      log(`${tool.name}: ${op} ${rec.error ? 'FAILED' : 'ok'} in ${r.wall.toFixed(2)}s`);
      records.push(rec);
    }
  } catch (e) {
    log(`${tool.name}: setup failed: ${e.message}`);
    const done = new Set(records.map((r) => r.op));
    for (const { op } of plan) if (!done.has(op)) records.push({ ...base, op, skipped: `setup failed: ${e.message}` });
  } finally {
    if (opts.keep) log(`${tool.name}: kept ${work}`);
    else await rm(work, { recursive: true, force: true });
  }
  return records;
}

/**
 * One record for an op over several runs: a failure if any run failed,
 * else the run with the median wall time, carrying all walls.
 */
function medianRun(records) {
  if (records.length === 1) return records[0];
  const bad = records.find((r) => r.error || r.skipped || r.correct === false);
  if (bad || records[0].na) return bad ?? records[0];
  const sorted = [...records].sort((a, b) => a.wall - b.wall);
  return { ...sorted[(sorted.length - 1) >> 1], walls: records.map((r) => r.wall) };
}

async function main() {
  // Scenario scale runs at several file counts, not on one dataset: bench/scale.mjs.
  if (
    process.argv
      .slice(2)
      .join(' ')
      .match(/--scenario[= ]scale\b/)
  ) {
    const { values } = parseArgs({
      options: {
        scenario: { type: 'string' },
        files: { type: 'string' },
        work: { type: 'string' },
        keep: { type: 'boolean' },
        warm: { type: 'boolean' },
        'no-restic': { type: 'boolean' },
      },
    });
    process.exit(await (await import('./scale.mjs')).runScale(values));
  }
  const opts = options();
  const cacheDir = join(here, '.cache');
  await mkdir(cacheDir, { recursive: true });
  const ds = opts.source ? await sourceFolder(opts.source) : await ensureDataset({ repoRoot, cacheDir, size: opts.size, seed: opts.seed, log });
  log(`dataset ${ds.dir}: ${ds.summary.files} files, ${(ds.summary.bytes / 1e6).toFixed(1)} MB${ds.reused ? ' (cached)' : ''}`);
  opts.workRoot = opts.work ? resolve(opts.work) : await mkdtemp(join(tmpdir(), 'brickpost-bench-'));
  await mkdir(opts.workRoot, { recursive: true });
  // When a scenario changes the source, every tool works on a copy of the
  // dataset at one path (the cache is never changed), made again for each
  // tool: a tool's second pack then sees the files it packed first, changed
  // in place, as a user's folder would be.
  const changes = opts.scenarios.some((sc) => sc.beforeOps);
  const ctx = {
    repoRoot,
    dataset: ds.dir,
    src: changes ? join(opts.workRoot, `${basename(ds.dir)}-src`) : ds.dir,
    datasetBytes: ds.summary.bytes,
    srcState: null,
  };
  const names = opts.scenarios.map((sc) => sc.name).join('+');
  const scenarioInfo = () => Object.fromEntries(opts.scenarios.filter((sc) => sc.info).map((sc) => [sc.name, sc.info(ctx)]));

  // A tool made for some scenarios only (rclone: s3) runs when one of them does.
  const tools = TOOLS.filter((t) => opts.only.includes(t.name) && (!t.scenarios || opts.scenarios.some((sc) => t.scenarios.includes(sc.name))));
  // A scenario's own setup (s3: a local S3 server holding the dataset), untimed.
  for (const sc of opts.scenarios) if (sc.setup) await sc.setup(ctx, { workRoot: opts.workRoot, log });
  const versions = {};
  const steps = [];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(here, 'results');
  await mkdir(resultsDir, { recursive: true });
  const file = join(resultsDir, `${stamp}.json`);
  const save = (extra) =>
    writeFile(
      file,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          scenario: names,
          size: opts.source ? null : opts.size,
          seed: opts.seed,
          source: opts.source ?? null,
          repeat: opts.repeat,
          dataset: ds.summary,
          scenarios: scenarioInfo(),
          versions,
          steps,
          machine: { cores: cpus().length, cpu: cpus()[0]?.model, memBytes: totalmem(), kernel: release(), node: process.version },
          ...extra,
        },
        null,
        2,
      ) + '\n',
    );
  for (const tool of tools) {
    try {
      versions[tool.name] = tool.describe(ctx);
    } catch {
      versions[tool.name] = '?';
    }
    const runs = [];
    for (let i = 0; i < opts.repeat; i++) {
      if (opts.repeat > 1) log(`${tool.name}: run ${i + 1} of ${opts.repeat}`);
      runs.push(await runTool(tool, opts.scenarios, ctx, opts));
    }
    const ops = opts.scenarios.flatMap((sc) => sc.ops);
    steps.push(...ops.map((op) => medianRun(runs.map((r) => r.find((s) => s.op === op)))));
    // Saved after every tool, so a run cut short keeps what it measured.
    await save({ complete: false });
  }
  // Reference steps belong to no tool (rdiff); they see the scenario's source state.
  for (const sc of opts.scenarios.filter((x) => x.reference)) {
    log(`${sc.name}: reference steps ...`);
    try {
      if (ctx.srcState !== sc.name) {
        resetSource(ctx);
        await enterScenario(sc, ctx);
      }
      steps.push(...(await sc.reference(ctx, { workRoot: opts.workRoot, log })));
    } catch (e) {
      log(`${sc.name}: reference steps failed: ${e.message}`);
      steps.push({ tool: 'reference', op: sc.name, skipped: `failed: ${e.message}` });
    }
  }
  for (const sc of opts.scenarios) sc.teardown?.();
  if (!opts.work && !opts.keep) await rm(opts.workRoot, { recursive: true, force: true });
  else if (changes && !opts.keep) await rm(ctx.src, { recursive: true, force: true });

  const modes = [...new Set(steps.filter((s) => s.cache).map((s) => s.cache))];
  const others = tools.map((t) => t.name).filter((n) => n !== 'brickpost');
  const targets = opts.scenarios.flatMap((sc) => judgeTargets(steps, sc, ctx).map((t) => ({ scenario: sc.name, ...t })));
  const print = (s = '') => process.stdout.write(s + '\n');
  print(`\nbrickpost bench: ${opts.scenarios.map((sc) => `scenario ${sc.name} (${sc.description})`).join(', then ')}`);
  print(
    `dataset: ${opts.source ? `the folder ${ds.dir}` : `make_dataset.py --size ${opts.size} --seed ${opts.seed}`}: ${ds.summary.files} files, ${(ds.summary.bytes / 1e6).toFixed(1)} MB`,
  );
  for (const sc of opts.scenarios) for (const line of sc.describe?.(ctx) ?? []) print(line);
  print(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}`);
  const loads = steps.filter((s) => s.load != null).map((s) => s.load);
  if (loads.length)
    print(
      `load average before steps: ${Math.min(...loads).toFixed(2)}..${Math.max(...loads).toFixed(2)} (1-minute average, includes the previous step; other work on the machine makes timings noisy)`,
    );
  if (opts.repeat > 1) print(`each step run ${opts.repeat} times; the run with the median wall time is shown`);
  print(
    `page cache: ${modes.join('+') || 'n/a'} (${modes.includes('cold') ? 'dropped before every step' : 'not dropped: inputs may be cached'}); MB = 10^6 bytes; MB/s = dataset bytes / wall`,
  );
  for (const [name, v] of Object.entries(versions)) print(`  ${name.padEnd(10)} ${v}`);
  print('\n' + stepsTable(steps, ds.summary.bytes));
  const notes = [...new Set(steps.filter((s) => s.skipped || s.error).map((s) => `${s.tool}: ${s.skipped ?? s.error}`))];
  if (notes.length) print('\nnotes:\n' + notes.map((n) => '  ' + n.replace(/\n/g, '\n    ')).join('\n'));
  if (tools.some((t) => t.name === 'brickpost') && others.length) {
    for (const sc of opts.scenarios) print(`\n${sc.name}:\n` + ratioTable(steps, sc, others));
  }
  print('\ntargets:');
  for (const t of targets) print(`  ${t.status.padEnd(4)} ${opts.scenarios.length > 1 ? `${t.scenario}: ` : ''}${t.text}: ${t.shown}`);

  await save({ complete: true, cache: modes, targets });
  print(`\nresults: ${file}`);
  const bad = steps.some((s) => s.error || s.correct === false);
  process.exit(bad ? 1 : 0);
}

main().catch((e) => {
  log(`error: ${e.message}`);
  process.exit(2);
});
