/**
 * The initial shipment: the whole dataset goes onto an empty drive, is
 * verified (without and with the key) and ingested into an empty folder.
 *
 * A scenario names the operations every tool is timed on, in order (a tool
 * without an operation shows n/a), the brickpost-vs-other ratios to print
 * and the targets to judge. Later scenarios (an incremental shipment after
 * make_dataset.py --mutate against restic's and borg's second backup, parity
 * against par2) add their own operations to the tools and a file here.
 */
import { ratio, rssPeak } from '../lib/report.mjs';

export default {
  name: 'initial',
  description: 'first full shipment: pack, verify, verify --deep, ingest',
  ops: ['pack', 'read-drive', 'verify', 'verify-deep', 'ingest'],
  comparisons: [
    { title: 'pack throughput', op: 'pack', metric: 'mbps' },
    { title: 'pack CPU s (lower is better)', op: 'pack', metric: 'cpu' },
    { title: 'verify (no key) throughput', op: 'verify', metric: 'mbps' },
    { title: 'verify --deep throughput', op: 'verify-deep', metric: 'mbps' },
    { title: 'ingest throughput', op: 'ingest', metric: 'mbps' },
    { title: 'bytes on drive (lower is better)', op: 'pack', metric: 'bytesOnDrive' },
  ],
  targets: [
    ratioTarget('pack >= 1.5x restic backup throughput', 'pack', 'restic', 'mbps', (r) => r >= 1.5),
    ratioTarget('pack >= 1.0x the tar|zstd|age pipeline throughput', 'pack', 'pipeline', 'mbps', (r) => r >= 1.0),
    ratioTarget("bytes on drive <= the pipeline's", 'pack', 'pipeline', 'bytesOnDrive', (r) => r <= 1.0),
    ratioTarget("pack CPU s <= 1.2x the pipeline's", 'pack', 'pipeline', 'cpu', (r) => r <= 1.2),
    ratioTarget('ingest >= 1.5x restic restore throughput', 'ingest', 'restic', 'mbps', (r) => r >= 1.5),
    ratioTarget('ingest >= 1.0x rustic restore throughput', 'ingest', 'rustic', 'mbps', (r) => r >= 1.0),
    ratioTarget('ingest >= 1.0x age -d|zstd -d|tar -x throughput', 'ingest', 'pipeline', 'mbps', (r) => r >= 1.0),
    ratioTarget('verify --deep >= 1.5x restic check --read-data throughput', 'verify-deep', 'restic', 'mbps', (r) => r >= 1.5),
    ratioTarget('verify --deep >= 1.0x rustic check --read-data throughput', 'verify-deep', 'rustic', 'mbps', (r) => r >= 1.0),
    {
      text: "keyless verify >= 0.8x the disk's sequential read of the same drive (cat, cold)",
      judge: (steps) => {
        const v = ok(steps, 'verify');
        const c = ok(steps, 'read-drive');
        return v && c ? threshold(c.wall / v.wall, (r) => r >= 0.8, 'x') : threshold(null);
      },
    },
    {
      text: 'peak RSS <= 200 MB (every brickpost command, whole process tree)',
      // The report step's process tree includes Chromium printing the PDF, not brickpost's own memory.
      judge: (steps) =>
        threshold(
          rssPeak(
            steps.filter((s) => s.op !== 'report' && s.op !== 'read-drive'),
            'brickpost',
          ),
          (mb) => mb <= 200,
          ' MB',
        ),
    },
  ],
};

const ok = (steps, op) => steps.find((s) => s.tool === 'brickpost' && s.op === op && !s.error && !s.na && !s.skipped && s.wall != null);

function ratioTarget(text, op, other, metric, pass) {
  return { text, judge: (steps) => threshold(ratio(steps, op, other, metric), pass, 'x') };
}

function threshold(value, ok, unit) {
  if (value == null) return { status: 'n/a', value: null, shown: 'no data' };
  return { status: ok(value) ? 'PASS' : 'MISS', value, shown: `${value.toFixed(2)}${unit}` };
}
