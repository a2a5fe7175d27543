/**
 * Object storage: the dataset as objects in a bucket of a local S3 server
 * (versitygw, bench/lib/s3server.mjs), packed from the bucket onto a drive,
 * and that shipment ingested into another bucket; against rclone copying
 * the same bucket to a local folder and that folder into another bucket
 * (rclone's defaults: 4 transfers, 8 checkers). rclone neither encrypts
 * nor verifies a signature: the ratio is what brickpost's work costs over
 * moving the bytes. Each copy is compared with the dataset, file by file.
 *
 *   s3-pack    brickpost pack s3://bench-src/ds --to DRIVE …  |  rclone copy :s3:bench-src/ds LOCAL
 *   s3-ingest  brickpost ingest DRIVE s3://bench-dst/TOOL     |  rclone copy LOCAL :s3:bench-dst/TOOL
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ratio } from '../lib/report.mjs';
import { startS3 } from '../lib/s3server.mjs';

let server = null;

export default {
  name: 's3',
  description: 'pack from a bucket and ingest into a bucket of a local S3 server, against rclone copy both ways',
  ops: ['s3-pack', 's3-ingest'],
  /** Starts the server and puts the dataset in bucket bench-src under ds/ (untimed). */
  async setup(ctx, { workRoot, log }) {
    server = await startS3(workRoot, log);
    mkdirSync(join(server.root, 'bench-dst'), { recursive: true });
    mkdirSync(join(server.root, 'bench-src'), { recursive: true });
    const r = spawnSync('cp', ['-a', '--reflink=auto', ctx.dataset, join(server.root, 'bench-src', 'ds')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`copying the dataset into the bucket failed: ${r.stderr}`);
    ctx.s3 = server;
  },
  teardown() {
    server?.stop();
  },
  comparisons: [
    { title: 'pack from S3 throughput', op: 's3-pack', metric: 'mbps' },
    { title: 'pack from S3 CPU s (lower is better)', op: 's3-pack', metric: 'cpu' },
    { title: 'ingest into S3 throughput', op: 's3-ingest', metric: 'mbps' },
    { title: 'ingest into S3 CPU s (lower is better)', op: 's3-ingest', metric: 'cpu' },
  ],
  targets: [
    info('pack from S3 / rclone copy from S3 throughput (informational)', 's3-pack'),
    info('ingest into S3 / rclone copy into S3 throughput (informational)', 's3-ingest'),
  ],
};

function info(text, op) {
  return {
    text,
    judge: (steps) => {
      const x = ratio(steps, op, 'rclone', 'mbps');
      return x == null ? { status: 'n/a', value: null, shown: 'no data' } : { status: 'INFO', value: x, shown: `${x.toFixed(2)}x` };
    },
  };
}

/**
 * A check of a copy in the server's folder (or a local one) against the
 * dataset: the same files with the same bytes (folders, modes and times are
 * not compared: a bucket holds none of them). Null when equal.
 */
export function sameTree(ctx, copy) {
  const files = (root) => {
    const out = new Map();
    const walk = (dir, rel) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (rel === '' && (e.name === '.brickpost' || e.name === '.sgwtmp')) continue;
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(join(dir, e.name), r);
        else if (e.isFile())
          out.set(
            r,
            createHash('sha256')
              .update(readFileSync(join(dir, e.name)))
              .digest('hex'),
          );
      }
    };
    walk(root, '');
    return out;
  };
  const a = files(ctx.dataset);
  const b = files(copy);
  const diffs = [];
  for (const [k, v] of a) if (b.get(k) !== v) diffs.push(b.has(k) ? `differs: ${k}` : `missing: ${k}`);
  for (const k of b.keys()) if (!a.has(k)) diffs.push(`extra: ${k}`);
  return diffs.length === 0 ? null : `differs from the dataset: ${diffs.slice(0, 5).join('; ')}`;
}
