/**
 * Memory does not grow with the number of files: ingest and rollback of a
 * 40,000-file tree run under a V8 heap limit (--max-old-space-size) that a
 * structure of a few hundred bytes per file would exceed. The commit once
 * read the journal's ops of the whole shipment into an array (about 400
 * bytes a file), which died at this limit; it now reads them a page at a
 * time. The limit is a bound on memory, not on time: the assertion is the
 * exit code and the tree, never a duration.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import {
  brickpost,
  CLI,
  COMMAND_TIMEOUT,
  diffSnapshots,
  lastEvent,
  MAKE_DATASET,
  publisherAndSubscriber,
  sh,
  snapshot,
  tempDir,
  type Node,
  type Run,
} from '../support.js';

const FILES = 40_000;
/** MB of V8 old space: the bounded ingest needs under 16 at this size; the unbounded one needed 28. */
const HEAP_MB = 24;
/** Files the second shipment changes: its retire and install ops span several pages of the journal. */
const CHANGED = 1_200;

/** Runs brickpost with the heap limit. */
function bounded(home: string, args: string[]): Run {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CLI, '--home', home, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    timeout: COMMAND_TIMEOUT * 2,
  });
  if (r.signal) throw new Error(`brickpost ${args.join(' ')} was killed by ${r.signal}; stderr: ${r.stderr.slice(-2000)}`);
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe(`${FILES} files in ${HEAP_MB} MB of heap`, () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const dest = join(root, 'dest');
  let recipient: string;
  let v1: Map<string, Node>;

  beforeAll(() => {
    sh('python3', [MAKE_DATASET, src, '--files', String(FILES), '--seed', '3', '-q']);
    recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(join(root, 'd1'));
    mkdirSync(join(root, 'd2'));
    const r = brickpost(pub, ['pack', src, '--to', join(root, 'd1'), '--recipient', recipient, '--dataset', 'many', '--json'], {
      timeout: COMMAND_TIMEOUT * 2,
    });
    assert.equal(r.code, 0, r.stderr);
    v1 = snapshot(src);
  });

  test('ingest builds the whole tree', () => {
    const r = bounded(sub, ['ingest', join(root, 'd1'), dest, '--json']);
    assert.equal(r.code, 0, `ingest failed under the heap limit: ${r.stderr.slice(-2000)}`);
    assert.equal(lastEvent(r).result.files, FILES);
    assert.deepEqual(diffSnapshots(v1, snapshot(dest)), []);
  });

  test('an incremental shipment changing many files ingests and rolls back', () => {
    const first = JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout).shipments[0].shipmentId as string;
    const later = new Date('2025-06-01T00:00:00Z');
    for (let i = 0; i < CHANGED; i++) {
      const n = i * Math.floor(FILES / CHANGED);
      const name = `s${String(Math.floor(n / 100000)).padStart(2, '0')}/t${String(Math.floor(n / 1000) % 100).padStart(2, '0')}/u${Math.floor(n / 100) % 10}/f${String(n).padStart(7, '0')}.${n % 2 === 0 ? 'txt' : 'bin'}`;
      appendFileSync(join(src, name), `changed ${i}\n`);
      utimesSync(join(src, name), later, later);
    }
    const v2 = snapshot(src);
    const p = brickpost(pub, ['pack', src, '--to', join(root, 'd2'), '--recipient', recipient, '--dataset', 'many', '--json'], {
      timeout: COMMAND_TIMEOUT * 2,
    });
    assert.equal(p.code, 0, p.stderr);
    assert.equal(lastEvent(p).result.full, false);
    const i = bounded(sub, ['ingest', join(root, 'd2'), dest, '--json']);
    assert.equal(i.code, 0, `incremental ingest failed under the heap limit: ${i.stderr.slice(-2000)}`);
    assert.deepEqual(diffSnapshots(v2, snapshot(dest)), []);
    const b = bounded(sub, ['rollback', dest, '--to', first, '--json']);
    assert.equal(b.code, 0, `rollback failed under the heap limit: ${b.stderr.slice(-2000)}`);
    assert.deepEqual(diffSnapshots(v1, snapshot(dest)), []);
  });
});
