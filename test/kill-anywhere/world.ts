/**
 * The fixed world every kill trial starts from, built once: a publisher and
 * a subscriber identity, a dataset at version 1 and (after make_dataset's
 * --mutate) version 2, the drives the ingest trials read, a destination at
 * version 1, and the publisher homes the pack trials copy (one before the
 * dataset was shipped, one after version 1 was).
 *
 * Scenarios name what a trial runs: for ingest, the drives, the destination
 * it starts from and the trees before and after; for pack, the home it
 * copies, the number of drives, and where its shipment is ingested to
 * check it.
 */
import assert from 'node:assert/strict';
import { linkSync, lutimesSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, makeDataset, MAKE_DATASET, sh, snapshot, type Node } from '../support.js';
import { ENV } from './run.js';

/** The dataset's name in every shipment of the harness. */
export const DATASET = 'k';

/** Ingest trials: `ingest DRIVES… DEST` from `base`, taking DEST from tree `old` to tree `next`. */
export interface IngestScenario {
  kind: 'ingest';
  name: string;
  drives: string[];
  /** The destination a trial starts from (copied), or null for a first ingest into a new folder. */
  base: string | null;
  old: Map<string, Node>;
  next: Map<string, Node>;
  /** Instead of ingesting: `rollback DEST --to` this sequence number. */
  rollbackTo?: string;
}

/** Pack trials: `pack SRC --to DRIVE…` from a copy of `template`, whose shipment must ingest to `want`. */
export interface PackScenario {
  kind: 'pack';
  name: string;
  /** The publisher home a trial copies (keys, trust store, catalog). */
  template: string;
  drives: number;
  /** True when the template shipped the dataset before: trials share its secret, so chunk ids compare. */
  shipped: boolean;
  /** Where the shipment is ingested to check it: a copy of this destination, or a new folder. */
  base: string | null;
  want: Map<string, Node>;
}

/** The paths, identities and scenarios of the world (see buildWorld). */
export interface World {
  root: string;
  src: string;
  /**
   * The subscriber's home before any ingest, which every trial copies: a
   * home refuses to start a destination with a shipment older than one it
   * applied elsewhere, and trials ingest seq 1 and seq 2 of one dataset.
   */
  sub: string;
  recipient: string;
  ingest: IngestScenario[];
  pack: PackScenario[];
}

/** The arguments of pack in every trial of a scenario with these drives. */
export function packArgs(w: World, drives: string[]): string[] {
  return ['pack', w.src, ...drives.flatMap((d) => ['--to', d]), '--recipient', w.recipient, '--dataset', DATASET];
}

/**
 * Symbolic links and a hard-link pair beside the generated files, so that
 * the links phase of a commit is killed too; fixed times, so the world is
 * the same every run.
 */
function addLinks(src: string): void {
  const d = join(src, 'links');
  mkdirSync(d);
  writeFileSync(join(d, 'hard-a'), 'one file, two names\n');
  linkSync(join(d, 'hard-a'), join(d, 'hard-b'));
  symlinkSync('../links/hard-b', join(d, 'to-file'));
  symlinkSync('..', join(d, 'to-parent'));
  for (const n of ['hard-a', 'to-file', 'to-parent', '.']) lutimesSync(join(d, n), 1700000000, 1700000000);
}

/** Builds the world under `root` from a dataset of `size` (make_dataset.py's SIZE). @throws AssertionError when a setup step fails */
export function buildWorld(root: string, size: string): World {
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const ok = (home: string, args: string[]): void => {
    const r = brickpost(home, args, { env: ENV });
    assert.equal(r.code, 0, `setup: brickpost ${args.join(' ')}: ${r.stdout.slice(-1000)} ${r.stderr}`);
  };
  makeDataset(src, size, 11);
  addLinks(src);
  ok(pub, ['keygen', '--name', 'pub']);
  ok(sub, ['keygen', '--name', 'sub']);
  ok(sub, ['trust', 'add', join(pub, 'minisign.pub'), '--name', 'pub']);
  const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient as string;
  const w: World = { root, src, sub: join(root, 'home-sub'), recipient, ingest: [], pack: [] };
  sh('cp', ['-a', sub, w.sub]);
  const fresh = join(root, 'home-fresh');
  sh('cp', ['-a', pub, fresh]);

  const v1 = snapshot(src);
  const d1 = join(root, 'drive-v1');
  mkdirSync(d1);
  ok(pub, ['--quiet', ...packArgs(w, [d1])]);
  const shipped = join(root, 'home-v1');
  sh('cp', ['-a', pub, shipped]);
  const base = join(root, 'dest-v1');
  ok(sub, ['--quiet', 'ingest', d1, base]);
  assert.deepEqual(diffSnapshots(v1, snapshot(base)), [], 'setup: the version 1 destination');

  sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', '2', '-q']);
  // A retargeted link and a new hard link: the commit's links phase has work in the second shipment too.
  rmSync(join(src, 'links', 'to-file'));
  symlinkSync('hard-a', join(src, 'links', 'to-file'));
  linkSync(join(src, 'links', 'hard-a'), join(src, 'links', 'hard-c'));
  for (const n of ['to-file', '.']) lutimesSync(join(src, 'links', n), 1700000100, 1700000100);
  const v2 = snapshot(src);
  const d2 = join(root, 'drive-v2');
  mkdirSync(d2);
  ok(pub, ['--quiet', ...packArgs(w, [d2])]);
  const set = ['a', 'b', 'c'].map((x) => join(root, 'set', x));
  for (const d of set) mkdirSync(d, { recursive: true });
  const setHome = join(root, 'home-set');
  sh('cp', ['-a', fresh, setHome]);
  ok(setHome, ['--quiet', ...packArgs(w, set)]);

  // A destination at version 2 whose undo data is kept by chunks, for the rollback trials.
  const base2 = join(root, 'dest-v2');
  sh('cp', ['-a', base, base2]);
  ok(sub, ['--quiet', 'ingest', d2, base2]);
  w.ingest.push(
    { kind: 'ingest', name: 'rollback-incremental', drives: [], base: base2, old: v2, next: v1, rollbackTo: '1' },
    { kind: 'ingest', name: 'ingest-full', drives: [d1], base: null, old: new Map(), next: v1 },
    { kind: 'ingest', name: 'ingest-incremental', drives: [d2], base, old: v1, next: v2 },
    { kind: 'ingest', name: 'ingest-set', drives: set, base: null, old: new Map(), next: v2 },
  );
  w.pack.push(
    { kind: 'pack', name: 'pack-full', template: fresh, drives: 1, shipped: false, base: null, want: v2 },
    { kind: 'pack', name: 'pack-incremental', template: shipped, drives: 1, shipped: true, base, want: v2 },
    { kind: 'pack', name: 'pack-set', template: fresh, drives: 3, shipped: false, base: null, want: v2 },
  );
  return w;
}
