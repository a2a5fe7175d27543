/**
 * The verification report: after the initial scenario, the subscriber makes
 * the full report of the initial drive, `brickpost report DRIVE --html
 * --pdf --json` (signature, fixity of every file, custody log, HTML and a
 * PDF printed by headless Chromium), and an archivist checks the same drive
 * with `bagit.py --validate` (keyless fixity of the BagIt bag, no report).
 * Both read every byte on the drive; the ratio shows what the signature
 * check, the custody log and the two documents cost on top of the fixity
 * check alone. Only brickpost's drive has these steps.
 */
const ok = (steps, op) => steps.find((s) => s.tool === 'brickpost' && s.op === op && !s.error && !s.na && !s.skipped && s.wall != null);

export default {
  name: 'report',
  description: 'report --html --pdf of the initial drive against bagit.py --validate of it',
  after: 'initial',
  ops: ['report', 'bagit-validate'],
  comparisons: [],
  targets: [
    {
      text: 'report --html --pdf time / bagit.py --validate time (informational)',
      judge: (steps) => {
        const r = ok(steps, 'report');
        const b = ok(steps, 'bagit-validate');
        if (!r || !b) return { status: 'n/a', value: null, shown: 'no data' };
        const x = r.wall / b.wall;
        return { status: 'INFO', value: x, shown: `${x.toFixed(2)}x (report ${r.wall.toFixed(2)} s, bagit.py ${b.wall.toFixed(2)} s)` };
      },
    },
  ],
};
