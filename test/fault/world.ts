/**
 * The small world the errno matrix runs in, built once per test file: a
 * dataset at two versions, a publisher and a subscriber home, a drive with
 * the base shipment and one with the incremental one (recovery data on
 * both), and destinations at seq 1 and seq 2, each case starting from a
 * copy so that no fault leaks into the next case.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, lastEvent, MAKE_DATASET, makeDataset, publisherAndSubscriber, sh, snapshot, type Node } from '../support.js';

/** Packs of 256 KiB, so a small dataset makes several packs (the engine reads this variable). */
export const ENV = { BRICKPOST_PACK_TARGET: String(256 << 10) };

export interface World {
  root: string;
  /** The dataset at seq 2; `v1` holds it at seq 1. */
  src: string;
  v1: string;
  pub: string;
  /** The subscriber's home: `sub0` before any ingest, `sub1` after seq 1 into dest1, `sub` after seq 2 into dest2 too. */
  sub0: string;
  sub1: string;
  sub: string;
  recipient: string;
  /** The drive of shipment 1 (full) and of shipment 2 (incremental over 1). */
  drive1: string;
  drive2: string;
  id1: string;
  id2: string;
  /** DEST after shipment 1, and after shipments 1 and 2. */
  dest1: string;
  dest2: string;
  tree1: Map<string, Node>;
  tree2: Map<string, Node>;
}

/** Runs brickpost, asserting exit 0; returns its last event (--json). */
export function ok(home: string, args: string[]): Record<string, any> {
  const r = brickpost(home, ['--json', ...args], { env: { ...process.env, ...ENV } });
  assert.equal(r.code, 0, `brickpost ${args.join(' ')}: ${r.stdout.slice(-800)} ${r.stderr.slice(-800)}`);
  return lastEvent(r);
}

/**
 * Builds the world under `root` (about 1 MB of data): with `upTo` 'homes'
 * only the dataset and the two homes, with 'drive1' the first shipment too,
 * with 'all' both shipments and both destinations.
 */
export function buildWorld(root: string, upTo: 'homes' | 'drive1' | 'all' = 'all'): World {
  const src = join(root, 'src');
  const v1 = join(root, 'v1');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  makeDataset(src, '1M', 15);
  const recipient = publisherAndSubscriber(pub, sub);
  const w: World = {
    root,
    src,
    v1,
    pub,
    sub0: join(root, 'subscriber-0'),
    sub1: join(root, 'subscriber-1'),
    sub,
    recipient,
    drive1: join(root, 'drive1'),
    drive2: join(root, 'drive2'),
    id1: '',
    id2: '',
    dest1: join(root, 'dest1'),
    dest2: join(root, 'dest2'),
    tree1: new Map(),
    tree2: new Map(),
  };
  if (upTo === 'homes') return w;
  sh('cp', ['-a', src, v1]);
  w.tree1 = snapshot(v1);
  mkdirSync(w.drive1);
  w.id1 = ok(pub, ['pack', src, '--to', w.drive1, '--recipient', recipient, '--dataset', 'faults', '--label', 's1']).result.shipmentId as string;
  if (upTo === 'drive1') return w;
  sh('python3', [MAKE_DATASET, src, '--mutate', '10', '--seed', '4', '-q']);
  w.tree2 = snapshot(src);
  mkdirSync(w.drive2);
  w.id2 = ok(pub, ['pack', src, '--to', w.drive2, '--recipient', recipient, '--dataset', 'faults', '--label', 's2']).result.shipmentId as string;
  sh('cp', ['-a', sub, w.sub0]);
  ok(sub, ['ingest', w.drive1, w.dest1]);
  sh('cp', ['-a', sub, w.sub1]);
  sh('cp', ['-a', w.dest1, w.dest2]);
  ok(sub, ['ingest', w.drive2, w.dest2]);
  return w;
}

let copies = 0;

/** A copy of `dir` (cp -a: modes, times and links as they are) for one case. */
export function copyOf(w: World, dir: string, name: string): string {
  const to = join(w.root, 'cases', `${name}-${++copies}`);
  mkdirSync(join(w.root, 'cases'), { recursive: true });
  sh('cp', ['-a', dir, to]);
  return to;
}
