/**
 * Drive sets written truly in parallel: the dataset packed to one drive, to
 * 3 drives (2 data + 1 parity) and to 5 drives (3 data + 2 parity), each
 * drive a folder that writes at a drive's speed. The folders share one
 * disk here, so each is throttled on its own by a small LD_PRELOAD shim
 * (bench/lib/throttle.c, compiled on first use): every write to a file
 * under a drive's folder takes the time that drive needs for its bytes,
 * after the writes queued on it before; writes to different drives
 * overlap. BENCH_DRIVE_RATE sets the speed in bytes per second (default
 * 50000000, 50 MB/s, a USB hard disk's order).
 *
 * What it shows: a set of N drives writes its bytes in about the time one
 * drive takes to write its share (the largest share / the rate), that is
 * at about N times one drive's throughput, when the CPU keeps up (on a busy
 * machine lower the rate: the figures say how far the CPU was the limit).
 * The steps run with `npm run bench -- --scenario parallel --size 256M
 * --only brickpost` (no other tool has drive sets).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { dropCaches, measure } from '../lib/measure.mjs';
import { cliArgv } from '../lib/cli.mjs';

const RATE = Number(process.env.BENCH_DRIVE_RATE || 50e6);
const SETS = [
  { op: 'pack-1drive', drives: 1, parity: 0 },
  { op: 'pack-3drives', drives: 3, parity: 1 },
  { op: 'pack-5drives', drives: 5, parity: 2 },
];

/** Bytes of the regular files under a folder. */
function dirBytes(dir) {
  let n = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

/**
 * From the shim's log: the seconds from the first write to a drive to the
 * end of the last, and how many drives were busy at once on average over
 * that span (the drives' busy seconds over it).
 */
function overlap(logFile) {
  let first = Infinity;
  let last = 0;
  let busy = 0;
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const [, , start, end] = line.split(' ').map(Number);
    if (!(end >= start)) continue;
    first = Math.min(first, start);
    last = Math.max(last, end);
    busy += end - start;
  }
  return last > first ? { span: last - first, busy: busy / (last - first) } : { span: 0, busy: 0 };
}

/** The throttle shim's shared object, built into WORK. */
function buildShim(repoRoot, work) {
  const so = join(work, 'throttle.so');
  if (existsSync(so)) return so;
  const r = spawnSync('cc', ['-O2', '-Wall', '-shared', '-fPIC', '-o', so, join(repoRoot, 'bench', 'lib', 'throttle.c'), '-ldl', '-lpthread'], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`cannot compile bench/lib/throttle.c (cc ${r.error ? r.error.message : `exit ${r.status}`}): ${r.stderr}`);
  return so;
}

function threshold(value, pass, shown) {
  if (value == null) return { status: 'n/a', value: null, shown: 'no data' };
  return { status: pass ? 'PASS' : 'MISS', value, shown };
}

const mb = (b) => (b / 1e6).toFixed(1);

export default {
  name: 'parallel',
  description: `drive sets on drives throttled to ${mb(RATE)} MB/s each: 1 drive, 3 (1 parity), 5 (2 parity)`,
  ops: [],

  async reference(ctx, { workRoot, log }) {
    const work = join(workRoot, 'parallel');
    mkdirSync(work, { recursive: true });
    const so = buildShim(ctx.repoRoot, work);
    const cli = join(ctx.repoRoot, 'apps', 'cli', 'bin', 'brickpost.js');
    const home = join(work, 'home');
    const sub = join(work, 'sub');
    const run = (h, ...args) => {
      const [node, ...rest] = cliArgv(cli);
      const r = spawnSync(node, [...rest, '--home', h, ...args], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`brickpost ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      return r.stdout;
    };
    run(home, 'keygen', '--name', 'bench publisher');
    run(sub, 'keygen', '--name', 'bench subscriber');
    const recipient = JSON.parse(run(sub, 'whoami', '--json')).recipient;
    const steps = [];
    ctx.parallel = { rate: RATE, sets: [] };
    for (const s of SETS) {
      const drives = Array.from({ length: s.drives }, (_, i) => join(work, s.op, `d${i + 1}`));
      for (const d of drives) mkdirSync(d, { recursive: true });
      const argv = [
        ...cliArgv(cli),
        '--home',
        home,
        'pack',
        ctx.src,
        ...drives.flatMap((d) => ['--to', d]),
        '--parity',
        String(s.parity),
        '--recipient',
        recipient,
        '--no-self',
        '--dataset',
        s.op,
        '--json',
      ];
      const writes = join(work, `${s.op}.writes`);
      const env = { LD_PRELOAD: so, UV_USE_IO_URING: '0', BP_THROTTLE_RATE: String(RATE), BP_THROTTLE_DIRS: drives.join(':'), BP_THROTTLE_LOG: writes };
      const cache = dropCaches();
      const load = loadavg()[0];
      log(`parallel: ${s.op} (${s.drives} drives at ${mb(RATE)} MB/s each) ...`);
      const r = await measure(argv, { env, sync: work, stderr: join(work, `${s.op}.stderr`) });
      const bytes = drives.map(dirBytes);
      const total = bytes.reduce((a, b) => a + b, 0);
      const ideal = Math.max(...bytes) / RATE;
      const rec = {
        op: s.op,
        drives: s.drives,
        parity: s.parity,
        wall: r.wall,
        cpu: r.cpu,
        bytes,
        total,
        ideal,
        aggregate: total / r.wall,
        load,
        ...overlap(writes),
      };
      ctx.parallel.sets.push(rec);
      steps.push({
        tool: 'brickpost',
        op: s.op,
        label: `pack to ${s.drives} throttled drive${s.drives > 1 ? 's' : ''}`,
        cache,
        load,
        ...r,
        mbps: ctx.datasetBytes / 1e6 / r.wall,
        bytesOnDrive: total,
        ...(r.exitCode !== 0 ? { error: `exit ${r.exitCode}` } : {}),
      });
    }
    return steps;
  },

  describe: (ctx) => {
    const p = ctx.parallel;
    if (!p?.sets.length) return [];
    const one = p.sets[0];
    return [
      `drive sets, each drive throttled to ${mb(p.rate)} MB/s (bench/lib/throttle.c):`,
      "  drives  wall s  one drive's share at that speed, s  bytes on all drives MB  written MB/s  x one drive  writing s  drives busy at once",
      ...p.sets.map(
        (s) =>
          `  ${String(s.drives).padStart(6)}  ${s.wall.toFixed(1).padStart(6)}  ${s.ideal.toFixed(1).padStart(36)}  ${mb(s.total).padStart(22)}  ${mb(s.aggregate).padStart(12)}  ${(s.aggregate / one.aggregate).toFixed(2).padStart(11)}  ${s.span.toFixed(1).padStart(9)}  ${s.busy.toFixed(2).padStart(19)}`,
      ),
      "  (writing s: from the first write to a drive to the end of the last; drives busy at once: the drives' write time over that span)",
    ];
  },

  comparisons: [],

  targets: [3, 5].flatMap((n) => [
    {
      text: `${n}-drive set writes at >= ${(0.8 * n).toFixed(1)}x one drive's throughput (0.8 N)`,
      judge: (_s, ctx) => {
        const one = ctx.parallel?.sets.find((s) => s.drives === 1);
        const set = ctx.parallel?.sets.find((s) => s.drives === n);
        if (!one || !set) return threshold(null);
        const x = set.aggregate / one.aggregate;
        return threshold(x, x >= 0.8 * n, `${x.toFixed(2)}x (${mb(set.aggregate)} vs ${mb(one.aggregate)} MB/s)`);
      },
    },
    {
      text: `${n}-drive set takes <= 1.25x the time one drive takes to write its share`,
      judge: (_s, ctx) => {
        const set = ctx.parallel?.sets.find((s) => s.drives === n);
        if (!set) return threshold(null);
        const x = set.wall / set.ideal;
        return threshold(x, x <= 1.25, `${x.toFixed(2)}x (${set.wall.toFixed(1)} s vs ${set.ideal.toFixed(1)} s)`);
      },
    },
  ]),
};
