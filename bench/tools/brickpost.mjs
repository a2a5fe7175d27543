/**
 * brickpost itself, through its CLI as users run it: a publisher home packs
 * for a subscriber home's recipient, the shipment on a folder standing in
 * for the drive, zstd level 3 (the default); the subscriber (trusting the
 * publisher's key) verifies and ingests.
 *
 * pack         brickpost pack SRC --to DRIVE --recipient AGE1 --dataset bench --json
 * verify       brickpost verify DRIVE --json        (signature + fixity, no key)
 * verify-deep  brickpost verify DRIVE --deep --json (decrypt and re-hash all)
 * ingest       brickpost ingest DRIVE DEST --json
 * pack-incr    brickpost pack SRC --to DRIVE2 --recipient AGE1 --dataset bench --json
 *              (SRC changed in place; incremental: the dataset was shipped
 *              to that recipient)
 * ingest-incr  brickpost ingest DRIVE2 DEST --json  (onto the first ingest)
 * pack-set3    brickpost pack SRC --to S3/d1 --to S3/d2 --to S3/d3 …  (1 parity)
 * pack-set5    brickpost pack SRC --to S5/d1 … --to S5/d5 --parity 2 …
 * ingest-set3-lost  brickpost ingest S3/d2 S3/d3 DEST3 --json (data drive 1 lost)
 * read-drive   cat of every file of DRIVE to /dev/null: the disk's sequential read of
 *              the bytes keyless verify reads (its reference, not a brickpost command)
 * pack-1core   taskset -c 0 brickpost pack SRC --to DRIVE1 … --dataset bench-1core (one core)
 * ingest-1core taskset -c 0 brickpost ingest DRIVE DEST1 --json (one core)
 * report       brickpost report DRIVE --html R.html --pdf R.pdf --json (the subscriber)
 * s3-pack     brickpost pack s3://bench-src/ds --to DRIVE-S3 … (scenario s3: the dataset as objects)
 * s3-ingest   brickpost ingest DRIVE-S3 s3://bench-dst/brickpost --json
 * bagit-validate  bagit.py --validate DRIVE/brickpost/ID (the archivist's keyless
 *              fixity check of the same bag, for comparison)
 *
 * Two homes, because a shipment only for yourself is always self-contained.
 * The dataset is named explicitly, whatever the source folder is called.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

// The other tools restore a tree as it is, links leaving it included (a real tree's /etc/alternatives
// links): brickpost is asked to as well, so its output is compared with the same tree.
const INGEST_AS_IS = ['--outside-links'];
import { sh } from '../lib/measure.mjs';
import { sameTree } from '../scenarios/s3.mjs';
import { cliArgv } from '../lib/cli.mjs';

function cliPath(ctx) {
  return join(ctx.repoRoot, 'apps', 'cli', 'bin', 'brickpost.js');
}

function cli(ctx, home, ...args) {
  return [...cliArgv(cliPath(ctx)), '--home', home, ...args];
}

/** Last `summary` event of an NDJSON file, or the `error` event, or null. */
function lastEvent(file) {
  let last = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const ev = JSON.parse(line);
      if (ev.type === 'summary' || ev.type === 'error') last = ev;
    } catch {
      // Non-JSON lines are not events; they do not count.
    }
  }
  return last;
}

/** The one shipment's bag folder on a drive. */
function bagOf(drive) {
  const ids = readdirSync(join(drive, 'brickpost')).filter((n) => /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/.test(n));
  if (ids.length !== 1) throw new Error(`expected one shipment on ${drive}, found ${ids.length}`);
  return join(drive, 'brickpost', ids[0]);
}

function checkSummary(result, ok = () => true) {
  const ev = lastEvent(result.stdoutFile);
  if (!ev) return 'no summary event on stdout';
  if (ev.type === 'error') return `${ev.code}: ${ev.message}`;
  return ok(ev.result) ? null : `summary says not ok: ${JSON.stringify(ev.result).slice(0, 300)}`;
}

export default {
  name: 'brickpost',
  requires: [],
  unavailable(ctx) {
    if (!existsSync(cliPath(ctx))) return `CLI not found at ${cliPath(ctx)}`;
    return null;
  },
  describe(ctx) {
    const [node, ...rest] = cliArgv(cliPath(ctx));
    const r = spawnSync(node, [...rest, '--version'], { encoding: 'utf8' });
    return `${(r.stdout || '?').trim()} (node ${process.version}), zstd -3 default`;
  },
  async setup(ctx) {
    const state = {
      pub: join(ctx.work, 'publisher'),
      sub: join(ctx.work, 'subscriber'),
      drive: join(ctx.work, 'drive'),
      driveS3: join(ctx.work, 'drive-s3'),
      drive2: join(ctx.work, 'drive2'),
      dest: join(ctx.work, 'dest'),
      drive1: join(ctx.work, 'drive-1core'),
      dest1: join(ctx.work, 'dest-1core'),
      set3: join(ctx.work, 'set3'),
      set5: join(ctx.work, 'set5'),
      dest3: join(ctx.work, 'dest-set3'),
    };
    for (const [dir, n] of [
      [state.set3, 3],
      [state.set5, 5],
    ])
      for (let i = 1; i <= n; i++) await mkdir(join(dir, `d${i}`), { recursive: true });
    await mkdir(state.drive, { recursive: true });
    await mkdir(state.driveS3, { recursive: true });
    await mkdir(state.drive2, { recursive: true });
    await mkdir(state.drive1, { recursive: true });
    const run = (home, ...args) => {
      const argv = cli(ctx, home, ...args);
      const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`brickpost ${args.join(' ')} failed: ${(r.stderr || '').trim()}`);
      return r.stdout;
    };
    run(state.pub, 'keygen', '--name', 'bench publisher');
    run(state.sub, 'keygen', '--name', 'bench subscriber');
    run(state.sub, 'trust', 'add', JSON.parse(run(state.pub, 'whoami', '--json')).minisignPublicKey, '--name', 'bench publisher');
    state.recipient = JSON.parse(run(state.sub, 'whoami', '--json')).recipient;
    return state;
  },
  ops: {
    pack: (state, ctx) => ({
      label: 'pack',
      argv: cli(ctx, state.pub, 'pack', ctx.src, '--to', state.drive, '--recipient', state.recipient, '--dataset', 'bench', '--json'),
      stdout: true,
      sync: state.drive,
      check: (r) => checkSummary(r),
    }),
    'read-drive': (state) => ({
      label: 'cat every drive file > /dev/null',
      argv: ['bash', '-c', `find ${sh(state.drive)} -type f -print0 | sort -z | xargs -0 cat > /dev/null`],
    }),
    'pack-1core': (state, ctx) => ({
      label: 'pack, taskset -c 0',
      argv: [
        'taskset',
        '-c',
        '0',
        ...cli(ctx, state.pub, 'pack', ctx.src, '--to', state.drive1, '--recipient', state.recipient, '--dataset', 'bench-1core', '--json'),
      ],
      stdout: true,
      sync: state.drive1,
      drive: state.drive1,
      check: (r) => checkSummary(r),
    }),
    'ingest-1core': (state, ctx) => ({
      label: 'ingest, taskset -c 0',
      argv: ['taskset', '-c', '0', ...cli(ctx, state.sub, 'ingest', state.drive, state.dest1, ...INGEST_AS_IS, '--json')],
      stdout: true,
      sync: ctx.work,
      restored: state.dest1,
      check: (r) => checkSummary(r),
    }),
    verify: (state, ctx) => ({
      label: 'verify',
      argv: cli(ctx, state.sub, 'verify', state.drive, '--json'),
      stdout: true,
      check: (r) => checkSummary(r, (res) => res.ok !== false),
    }),
    'verify-deep': (state, ctx) => ({
      label: 'verify --deep',
      argv: cli(ctx, state.sub, 'verify', state.drive, '--deep', '--json'),
      stdout: true,
      check: (r) => checkSummary(r, (res) => res.ok !== false),
    }),
    ingest: (state, ctx) => ({
      label: 'ingest',
      argv: cli(ctx, state.sub, 'ingest', state.drive, state.dest, ...INGEST_AS_IS, '--json'),
      stdout: true,
      sync: ctx.work,
      check: (r) => checkSummary(r),
    }),
    report: (state, ctx) => ({
      label: 'report --html --pdf',
      argv: cli(ctx, state.sub, 'report', state.drive, '--html', join(ctx.work, 'report.html'), '--pdf', join(ctx.work, 'report.pdf'), '--json'),
      stdout: true,
      check: (r) => {
        try {
          const doc = JSON.parse(readFileSync(r.stdoutFile, 'utf8'));
          return doc.verdict?.ok === true ? null : `the report says ${JSON.stringify(doc.verdict?.title)}`;
        } catch (e) {
          return `no report on stdout: ${e.message}`;
        }
      },
    }),
    'bagit-validate': (state) => ({
      label: 'bagit.py --validate (same drive)',
      argv: ['bagit.py', '--validate', '--quiet', bagOf(state.drive)],
    }),
    'pack-incr': (state, ctx) => ({
      label: 'pack (incremental)',
      argv: cli(ctx, state.pub, 'pack', ctx.src, '--to', state.drive2, '--recipient', state.recipient, '--dataset', 'bench', '--json'),
      stdout: true,
      sync: state.drive2,
      drive: state.drive2,
      check: (r) =>
        checkSummary(r) ??
        (lastEvent(r.stdoutFile).result.full === false
          ? null
          : `pack wrote a full shipment, not an incremental one: ${JSON.stringify(lastEvent(r.stdoutFile).result.notes ?? [])}`),
      details: (r) => {
        const res = lastEvent(r.stdoutFile)?.result ?? {};
        const keys = ['seq', 'full', 'bases', 'filesRead', 'bytesRead', 'filesUnchanged', 'chunksHeld', 'bytesHeld', 'chunksDelta', 'bytesDelta', 'notes'];
        return { summary: Object.fromEntries(keys.filter((k) => k in res).map((k) => [k, res[k]])) };
      },
    }),
    'ingest-incr': (state, ctx) => ({
      label: 'ingest (incremental)',
      argv: cli(ctx, state.sub, 'ingest', state.drive2, state.dest, ...INGEST_AS_IS, '--json'),
      stdout: true,
      sync: ctx.work,
      check: (r) => checkSummary(r, (res) => res.alreadyApplied === false),
    }),
    's3-pack': (state, ctx) => ({
      label: 'pack s3://bench-src/ds',
      argv: cli(ctx, state.pub, 'pack', 's3://bench-src/ds', '--to', state.driveS3, '--recipient', state.recipient, '--dataset', 'bench-s3', '--json'),
      env: ctx.s3.env,
      stdout: true,
      sync: ctx.work,
      drive: state.driveS3,
      check: (r) => checkSummary(r),
    }),
    's3-ingest': (state, ctx) => ({
      label: 'ingest into s3://bench-dst/brickpost',
      argv: cli(ctx, state.sub, 'ingest', state.driveS3, 's3://bench-dst/brickpost', '--json'),
      env: ctx.s3.env,
      stdout: true,
      check: (r) => checkSummary(r, (res) => res.alreadyApplied === false) ?? sameTree(ctx, join(ctx.s3.root, 'bench-dst', 'brickpost')),
    }),
    'pack-set3': (state, ctx) => ({
      label: 'pack to 3 drives (1 parity)',
      argv: cli(
        ctx,
        state.pub,
        'pack',
        ctx.src,
        ...[1, 2, 3].flatMap((i) => ['--to', join(state.set3, `d${i}`)]),
        '--recipient',
        state.recipient,
        '--dataset',
        'bench-set3',
        '--json',
      ),
      stdout: true,
      sync: state.set3,
      drive: state.set3,
      check: (r) => checkSummary(r, (res) => res.parity === 1),
    }),
    'pack-set5': (state, ctx) => ({
      label: 'pack to 5 drives (2 parity)',
      argv: cli(
        ctx,
        state.pub,
        'pack',
        ctx.src,
        ...[1, 2, 3, 4, 5].flatMap((i) => ['--to', join(state.set5, `d${i}`)]),
        '--parity',
        '2',
        '--recipient',
        state.recipient,
        '--dataset',
        'bench-set5',
        '--json',
      ),
      stdout: true,
      sync: state.set5,
      drive: state.set5,
      check: (r) => checkSummary(r, (res) => res.parity === 2),
    }),
    'ingest-set3-lost': (state, ctx) => ({
      label: 'ingest from drives 2 and 3 of 3 (drive 1 rebuilt)',
      argv: cli(ctx, state.sub, 'ingest', join(state.set3, 'd2'), join(state.set3, 'd3'), state.dest3, ...INGEST_AS_IS, '--json'),
      stdout: true,
      sync: ctx.work,
      restored: state.dest3,
      check: (r) => checkSummary(r),
    }),
  },
  outputs: (state) => ({ drive: state.drive, restored: state.dest, exclude: ['.brickpost'] }),
};
