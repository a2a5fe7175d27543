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
  ops: ['pack', 'verify', 'verify-deep', 'ingest'],
  comparisons: [
    { title: 'pack throughput', op: 'pack', metric: 'mbps' },
    { title: 'verify (no key) throughput', op: 'verify', metric: 'mbps' },
    { title: 'verify --deep throughput', op: 'verify-deep', metric: 'mbps' },
    { title: 'ingest throughput', op: 'ingest', metric: 'mbps' },
    { title: 'bytes on drive (lower is better)', op: 'pack', metric: 'bytesOnDrive' },
  ],
  targets: [
    {
      text: 'pack >= 1.5x restic backup throughput',
      judge: (steps) => threshold(ratio(steps, 'pack', 'restic', 'mbps'), (r) => r >= 1.5, 'x'),
    },
    {
      text: 'pack >= 1.0x the tar|zstd|age pipeline throughput',
      judge: (steps) => threshold(ratio(steps, 'pack', 'pipeline', 'mbps'), (r) => r >= 1.0, 'x'),
    },
    {
      text: "bytes on drive <= the pipeline's",
      judge: (steps) => threshold(ratio(steps, 'pack', 'pipeline', 'bytesOnDrive'), (r) => r <= 1.0, 'x'),
    },
    {
      text: 'ingest >= 1.5x restic restore throughput',
      judge: (steps) => threshold(ratio(steps, 'ingest', 'restic', 'mbps'), (r) => r >= 1.5, 'x'),
    },
    {
      text: 'peak RSS <= 400 MB (any brickpost step, whole process tree)',
      // The report step's process tree includes Chromium printing the PDF, not brickpost's own memory.
      judge: (steps) => threshold(rssPeak(steps.filter((s) => s.op !== 'report'), 'brickpost'), (mb) => mb <= 400, ' MB'),
    },
  ],
};

function threshold(value, ok, unit) {
  if (value == null) return { status: 'n/a', value: null, shown: 'no data' };
  return { status: ok(value) ? 'PASS' : 'MISS', value, shown: `${value.toFixed(2)}${unit}` };
}
