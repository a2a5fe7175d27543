/**
 * Drive sets: the dataset packed to 3 drives with 1 parity drive (the
 * default for three) and to 5 drives with 2, next to the initial 1-drive
 * pack, then ingested from 2 of the 3 drives (a data drive lost: its packs
 * are rebuilt from the parity first). Only brickpost has these steps; the
 * drive folders share one disk here, so a set cannot write faster than one
 * drive: the figures show what parity costs in CPU and bytes.
 *
 * Reference steps: the parity codec against par2 at the same redundancy on
 * the same data (bench/parity.mjs): (2, 1) as a 3-drive set, (3, 2) as a
 * 5-drive set, and (200, 4), the per-drive recovery data at 2 %.
 */
import { parityBench, parityTable } from '../parity.mjs';

const ok = (steps, op) => steps.find((s) => s.tool === 'brickpost' && s.op === op && !s.error && !s.na && !s.skipped && s.wall != null);

function threshold(value, pass, shown) {
  if (value == null) return { status: 'n/a', value: null, shown: 'no data' };
  return { status: pass ? 'PASS' : 'MISS', value, shown };
}

/** Bytes on the set's drives over the 1-drive shipment's, against 1 + m/k. */
function overhead(steps, op, k, m) {
  const one = ok(steps, 'pack');
  const set = ok(steps, op);
  if (!one?.bytesOnDrive || !set?.bytesOnDrive) return threshold(null);
  const r = set.bytesOnDrive / one.bytesOnDrive;
  const want = 1 + m / k;
  return threshold(r, Math.abs(r / want - 1) <= 0.03, `${r.toFixed(3)}x the 1-drive bytes (1 + m/k = ${want.toFixed(3)})`);
}

function encodeRatio(ctx, code) {
  const c = ctx.parity?.codes.find((x) => x.code === code);
  if (!c) return threshold(null);
  return threshold(c.encodeRatio, c.encodeRatio >= 5, `${c.encodeRatio.toFixed(1)}x (${c.encode.MBps.toFixed(0)} vs ${c.par2.createMBps.toFixed(0)} MB/s)`);
}

export default {
  name: 'sets',
  description: 'drive sets: pack to 3 drives (1 parity) and 5 (2 parity), ingest with a drive lost; parity codec vs par2',
  after: 'initial',
  ops: ['pack-set3', 'pack-set5', 'ingest-set3-lost'],

  async reference(ctx, { workRoot, log }) {
    const t0 = performance.now();
    ctx.parity = await parityBench({
      work: workRoot,
      size: String(Math.min(512 << 20, ctx.datasetBytes)),
      par2Max: String(Math.min(256 << 20, ctx.datasetBytes)),
      log: (m) => log(`parity: ${m}`),
    });
    return [{ tool: 'parity', op: 'codec', label: 'parity codec vs par2', wall: (performance.now() - t0) / 1000, result: ctx.parity }];
  },

  describe: (ctx) =>
    ctx.parity
      ? [
          'parity codec against par2 (same data, same redundancy):',
          ...parityTable(ctx.parity)
            .split('\n')
            .map((l) => `  ${l}`),
        ]
      : [],

  comparisons: [],

  targets: [
    {
      text: '3-drive set pack throughput >= 0.8x the 1-drive pack (parity costs little CPU)',
      judge: (steps) => {
        const a = ok(steps, 'pack');
        const b = ok(steps, 'pack-set3');
        return a && b ? threshold(a.wall / b.wall, a.wall / b.wall >= 0.8, `${(a.wall / b.wall).toFixed(2)}x`) : threshold(null);
      },
    },
    {
      text: '5-drive set pack throughput >= 0.7x the 1-drive pack',
      judge: (steps) => {
        const a = ok(steps, 'pack');
        const b = ok(steps, 'pack-set5');
        return a && b ? threshold(a.wall / b.wall, a.wall / b.wall >= 0.7, `${(a.wall / b.wall).toFixed(2)}x`) : threshold(null);
      },
    },
    { text: '3-drive set bytes ~ 1 + 1/2 of one drive (within 3 %)', judge: (steps) => overhead(steps, 'pack-set3', 2, 1) },
    { text: '5-drive set bytes ~ 1 + 2/3 of one drive (within 3 %)', judge: (steps) => overhead(steps, 'pack-set5', 3, 2) },
    { text: 'parity encode (2, 1) >= 5x par2 create -r50', judge: (_s, ctx) => encodeRatio(ctx, '(2, 1)') },
    { text: 'parity encode (3, 2) >= 5x par2 create -r67', judge: (_s, ctx) => encodeRatio(ctx, '(3, 2)') },
    { text: 'recovery encode (200, 4) >= 5x par2 create -r2', judge: (_s, ctx) => encodeRatio(ctx, '(200, 4)') },
  ],
};
