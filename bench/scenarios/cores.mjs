/**
 * Cores: brickpost's pack and ingest of the initial scenario again, pinned
 * to one core (`taskset -c 0`), against the same commands on all cores.
 * The per-byte work runs on a pool sized to the machine, so on two cores a
 * pack or ingest should take about half the one-core time: no stage may
 * run on one thread for all bytes. Only brickpost has these steps.
 */
const ok = (steps, op) => steps.find((s) => s.tool === 'brickpost' && s.op === op && !s.error && !s.na && !s.skipped && s.wall != null);

function scaling(steps, one, all) {
  const a = ok(steps, one);
  const b = ok(steps, all);
  if (!a || !b) return { status: 'n/a', value: null, shown: 'no data' };
  const r = a.wall / b.wall;
  return { status: r >= 1.8 ? 'PASS' : 'MISS', value: r, shown: `${r.toFixed(2)}x (${a.wall.toFixed(2)} s on one core, ${b.wall.toFixed(2)} s on all)` };
}

export default {
  name: 'cores',
  description: 'pack and ingest pinned to one core (taskset -c 0) against all cores',
  after: 'initial',
  ops: ['pack-1core', 'ingest-1core'],
  comparisons: [],
  targets: [
    { text: 'pack on all cores >= 1.8x as fast as on one (taskset -c 0)', judge: (steps) => scaling(steps, 'pack-1core', 'pack') },
    { text: 'ingest on all cores >= 1.8x as fast as on one (taskset -c 0)', judge: (steps) => scaling(steps, 'ingest-1core', 'ingest') },
  ],
};
