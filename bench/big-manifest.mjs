#!/usr/bin/env node
/**
 * The manifest reader at ten million records, without ten million files:
 *
 *   node bench/big-manifest.mjs [--records 10000000] [--work DIR] [--keep]
 *
 * Writes a signed, encrypted shipment whose manifest lists RECORDS empty
 * files (1,000 to a folder, in two levels of folders) with the engine's
 * crafting writer (@brickpost/engine/testing: the real age, zstd and
 * minisign building blocks, the bag sealed as pack seals it), then times
 * what reads the whole manifest: `ls --json` (its lines counted), keyless
 * `verify` and `verify --deep`, each under bench/lib/rusage.py (wall, CPU,
 * peak RSS of the process tree). The generator holds the manifest's text
 * (about 70 bytes a record); the commands measured must not.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Compressor } from 'zstd-napi';
import { craftShipment, newParty } from '@brickpost/engine/testing';
import { measure, sh } from './lib/measure.mjs';
import { cliArgv } from './lib/cli.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'apps', 'cli', 'bin', 'brickpost.js');
const log = (m) => process.stderr.write(`bench: ${m}\n`);
const PER_DIR = 1000;

/** The manifest's text: header, folders and empty files in manifest order, packs (none), end. */
function manifestText(l, records) {
  const parts = [];
  let cur = [];
  let size = 0;
  const put = (s) => {
    cur.push(s);
    size += s.length;
    if (size > 1 << 22) {
      parts.push(Buffer.from(cur.join('')));
      cur = [];
      size = 0;
    }
  };
  put(JSON.stringify(l.header) + '\n');
  const leaves = Math.ceil(records / PER_DIR);
  const tops = Math.ceil(leaves / 100);
  let dirs = 0;
  let n = 0;
  for (let t = 0; t < tops; t++) {
    const top = `d${String(t).padStart(4, '0')}`;
    put(`{"t":"dir","p":"${top}","mode":493,"mtime":"0"}\n`);
    dirs++;
    for (let m = 0; m < 100 && n < records; m++) {
      const mid = `${top}/e${String(m).padStart(2, '0')}`;
      put(`{"t":"dir","p":"${mid}","mode":493,"mtime":"0"}\n`);
      dirs++;
      for (let f = 0; f < PER_DIR && n < records; f++, n++)
        put(`{"t":"file","p":"${mid}/f${String(n).padStart(8, '0')}","size":0,"mode":420,"mtime":"0","c":[]}\n`);
    }
  }
  put(JSON.stringify({ t: 'end', dirs, files: records, bytes: 0, chunks: 0, packs: 0 }) + '\n');
  parts.push(Buffer.from(cur.join('')));
  return { text: Buffer.concat(parts), dirs };
}

async function main() {
  const { values } = parseArgs({
    options: { records: { type: 'string', default: '10000000' }, work: { type: 'string' }, keep: { type: 'boolean', default: false } },
  });
  const records = Number(values.records);
  if (!Number.isSafeInteger(records) || records < 1) throw new Error(`--records wants a count, not ${values.records}`);
  const work = values.work ? resolve(values.work) : await mkdtemp(join(tmpdir(), 'brickpost-manifest-'));
  await mkdir(work, { recursive: true });
  try {
    const home = join(work, 'home');
    const drive = join(work, 'drive');
    await mkdir(drive, { recursive: true });
    const self = newParty(home);
    log(`writing a shipment of ${records} records ...`);
    let made = 0;
    const t0 = performance.now();
    const s = await craftShipment({
      drive,
      signingKey: self.signingKey,
      recipients: [self.recipient],
      dataset: 'big-manifest',
      info: { files: records, bytes: 0 },
      manifest: (l) => {
        const m = manifestText(l, records);
        made = m.text.length;
        return m.text;
      },
      manifestFrames: (text) => {
        // Frames of 1 MiB, as pack writes them, so a reader holds one at a time.
        const z = new Compressor();
        z.setParameters({ compressionLevel: 3, contentSizeFlag: true });
        const frames = [];
        for (let at = 0; at < text.length; at += 1 << 20) frames.push(z.compress(text.subarray(at, Math.min(text.length, at + (1 << 20)))));
        return Buffer.concat(frames);
      },
    });
    log(`shipment ${s.id}: ${(made / 1e6).toFixed(0)} MB of manifest text in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const out = join(work, 'ls.ndjson');
    const steps = [
      ['ls --json', ['bash', '-c', `${cliArgv(cli).map(sh).join(' ')} --home ${sh(home)} ls ${sh(drive)} --json > ${sh(out)}`]],
      ['verify (no key)', [...cliArgv(cli), '--home', home, 'verify', drive, '--json']],
      ['verify --deep', [...cliArgv(cli), '--home', home, 'verify', drive, '--deep', '--json']],
    ];
    const rows = [];
    for (const [label, argv] of steps) {
      log(`${label} ...`);
      const r = await measure(argv, { stderr: join(work, 'step.stderr') });
      rows.push({ label, ...r });
      log(`${label}: exit ${r.exitCode}, ${r.wall.toFixed(1)} s, ${r.treeRssMB} MB`);
    }
    const { spawnSync } = await import('node:child_process');
    const listed = Number(spawnSync('wc', ['-l', out], { encoding: 'utf8' }).stdout.trim().split(/\s+/)[0]);
    process.stdout.write(`\nmanifest of ${records} records (${(made / 1e6).toFixed(0)} MB of text); ls listed ${listed} entries\n`);
    for (const r of rows) {
      process.stdout.write(
        `  ${r.label.padEnd(16)} ${r.exitCode === 0 ? 'ok ' : `exit ${r.exitCode}`} ${r.wall.toFixed(1).padStart(7)} s ${r.cpu.toFixed(1).padStart(7)} CPU s ${((r.cpu * 1e6) / records).toFixed(2).padStart(6)} CPU µs/record ${String(r.treeRssMB).padStart(7)} MB peak RSS\n`,
      );
    }
  } finally {
    if (!values.keep) await rm(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
}

main().catch((e) => {
  log(`error: ${e.stack ?? e.message}`);
  process.exit(2);
});
