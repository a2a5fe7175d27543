#!/usr/bin/env node
/**
 * The whole brickpost flow on a generated dataset, as two people run it:
 *
 *   subscriber  keygen, trusts the publisher's key
 *   publisher   keygen, packs the dataset onto a "drive" (a folder) for the
 *               subscriber's recipient
 *   subscriber  verify (signature and fixity), verify --deep (decrypt and
 *               re-hash), ingest into a destination
 *
 * then checks the destination against the source byte for byte (paths,
 * sizes, mtimes to the millisecond, executable bits, empty directories) and
 * prints the figures the CLI's --json summaries report.
 *
 *   npm run demo [-- --size 200M] [--seed 1] [--keep]
 *
 * Exits 1 when a step fails or the trees differ, 2 on a setup problem.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findMakeDataset, generateDataset } from '../bench/lib/dataset.mjs';
import { compareTrees, treeBytes } from '../bench/lib/tree.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(root, 'apps', 'cli', 'bin', 'brickpost.js');

class StepError extends Error {}

const say = (msg) => process.stdout.write(`${msg}\n`);

/** Runs the CLI with HOME as its --home; returns {stdout, seconds}. Throws StepError on failure. */
function brickpost(what, home, args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, '--home', home, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.error) throw new StepError(`${what}: cannot run the CLI: ${r.error.message}`);
  if (r.status !== 0) {
    const ev = events(r.stdout).find((e) => e.type === 'error');
    const detail = ev ? `${ev.code}: ${ev.message}${ev.hint ? ` (hint: ${ev.hint})` : ''}` : '';
    throw new StepError(`${what} failed with exit code ${r.status}\n${detail}\n${r.stderr.trim()}`.trim());
  }
  return { stdout: r.stdout, seconds };
}

function events(stdout) {
  const out = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // Only whole JSON lines are events.
    }
  }
  return out;
}

/** Runs a long command with --json and returns {result, seconds} from its summary event. */
function job(what, home, args) {
  const { stdout, seconds } = brickpost(what, home, [...args, '--json']);
  const summary = events(stdout)
    .filter((e) => e.type === 'summary')
    .pop();
  if (!summary) throw new StepError(`${what}: no summary event on stdout`);
  return { result: summary.result, seconds };
}

function whoami(home) {
  return JSON.parse(brickpost('whoami', home, ['whoami', '--json']).stdout);
}

const mb = (bytes) => (bytes / 1e6).toFixed(1);

function printTable(rows) {
  const header = ['step', 'seconds', 'MB/s', 'detail'];
  const cells = rows.map((r) => [r.step, r.seconds.toFixed(2), r.rate.toFixed(1), r.detail]);
  const w = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) =>
    c
      .map((x, i) => (i === 1 || i === 2 ? x.padStart(w[i]) : x.padEnd(w[i])))
      .join('  ')
      .trimEnd();
  say(line(header));
  say(line(w.map((n) => '-'.repeat(n))));
  for (const c of cells) say(line(c));
}

async function demo(opts, tmp) {
  const source = join(tmp, 'source');
  const drive = join(tmp, 'drive');
  const dest = join(tmp, 'dest');
  const pubHome = join(tmp, 'publisher-home');
  const subHome = join(tmp, 'subscriber-home');
  await mkdir(drive);

  const script = findMakeDataset(root);
  say(`generating a ${opts.size} dataset (make_dataset.py --seed ${opts.seed}) ...`);
  const ds = await generateDataset(script, source, { size: opts.size, seed: opts.seed });
  say(`  ${ds.files} files, ${mb(ds.bytes)} MB in ${source}`);

  say('subscriber: keygen');
  brickpost('subscriber keygen', subHome, ['keygen', '--name', 'subscriber']);
  const sub = whoami(subHome);
  say(`  recipient ${sub.recipient}`);
  say('publisher: keygen');
  brickpost('publisher keygen', pubHome, ['keygen', '--name', 'publisher']);
  const pub = whoami(pubHome);
  say(`  signing key ${pub.keyId}`);
  say('subscriber: trust add <publisher key>');
  brickpost('trust add', subHome, ['trust', 'add', pub.minisignPublicKey]);

  const rows = [];
  say('publisher: pack -> drive');
  const pack = job('pack', pubHome, ['pack', source, '--to', drive, '--recipient', sub.recipient, '--dataset', 'demo', '--label', 'demo shipment']);
  const p = pack.result;
  rows.push({
    step: 'pack',
    seconds: pack.seconds,
    rate: p.bytesIn / 1e6 / pack.seconds,
    detail: `${p.files} files, ${mb(p.bytesIn)} MB -> ${mb(p.bytesOnDrive)} MB on drive (${(p.bytesOnDrive / p.bytesIn).toFixed(2)}x)`,
  });
  say(`  shipment ${p.shipmentId}`);

  for (const deep of [false, true]) {
    const name = deep ? 'verify --deep' : 'verify';
    say(`subscriber: ${name}`);
    const v = job(name, subHome, ['verify', drive, ...(deep ? ['--deep'] : [])]);
    const r = v.result;
    if (r.ok === false) throw new StepError(`${name} reported problems: ${JSON.stringify(r.problems ?? r)}`);
    rows.push({
      step: name,
      seconds: v.seconds,
      rate: p.bytesIn / 1e6 / v.seconds,
      detail: `signature ${r.signature ?? '?'}, fixity ${r.fixity ?? '?'}, deep ${r.deep ?? '?'}, ${mb(r.bytesChecked ?? 0)} MB checked`,
    });
  }

  say('subscriber: ingest -> destination');
  const ing = job('ingest', subHome, ['ingest', drive, dest]);
  const g = ing.result;
  rows.push({ step: 'ingest', seconds: ing.seconds, rate: p.bytesIn / 1e6 / ing.seconds, detail: `${g.files} files, ${mb(g.bytesWritten ?? 0)} MB written` });

  say('comparing destination with source ...');
  const cmp = await compareTrees(source, dest, { exclude: ['.brickpost'] });
  if (!cmp.equal) throw new StepError(`destination differs from source:\n  ${cmp.diffs.join('\n  ')}`);
  const onDrive = await treeBytes(drive);

  say('');
  printTable(rows);
  say('');
  say(
    `files ${cmp.files}, directories ${cmp.dirs}, ${mb(cmp.bytes)} MB; on drive ${mb(onDrive.bytes)} MB in ${onDrive.files} files ` +
      `(${(onDrive.bytes / cmp.bytes).toFixed(2)}x); destination identical to source`,
  );
  say('MB = 10^6 bytes; MB/s = dataset bytes / seconds of the whole command, for every step');
}

async function main() {
  const { values: opts } = parseArgs({
    options: {
      size: { type: 'string', default: '200M' },
      seed: { type: 'string', default: '1' },
      keep: { type: 'boolean', default: false },
    },
  });
  if (!existsSync(CLI)) {
    process.stderr.write(`demo: error: the CLI is not at ${CLI}; run npm run build first\n`);
    return 2;
  }
  const tmp = await mkdtemp(join(tmpdir(), 'brickpost-demo-'));
  try {
    await demo(opts, tmp);
    return 0;
  } catch (e) {
    const setup = !(e instanceof StepError);
    process.stderr.write(`demo: error: ${e.message}\n`);
    if (!opts.keep) process.stderr.write('demo: hint: rerun with --keep to inspect the temporary folders\n');
    return setup ? 2 : 1;
  } finally {
    if (opts.keep) say(`kept ${tmp}`);
    else await rm(tmp, { recursive: true, force: true });
  }
}

process.exitCode = await main();
