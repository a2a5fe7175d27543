/**
 * The errno matrix of the commands that change a destination: ingest (a
 * first shipment into a new folder, an incremental one onto seq 1) and
 * rollback (seq 2 back to seq 1). Every case starts from fresh copies of
 * the subscriber's home and of DEST at the same paths (so the calls the
 * recording run made are the calls the case makes), fails one call, and
 * checks, besides what checkOutcome checks:
 *
 * - DEST is at the old tree, or (the commit started) the error says to run
 *   the command again, and state.json lists the old shipments unless DEST
 *   is at the new tree;
 * - the same command without the fault then succeeds: DEST is the new tree
 *   byte for byte (modes and times too) and state.json lists exactly the
 *   new shipments.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, sh, snapshot, type Node } from '../support.js';
import { appliedIds, checkOutcome, recordCalls, runFault, type CommandMatrix, type PathClass } from './matrix.js';
import { ENV, type World } from './world.js';

/** One command's matrix. */
export type Matrix = CommandMatrix;

function treeOf(dir: string): Map<string, Node> {
  return existsSync(dir) ? snapshot(dir) : new Map();
}

/** The classes of paths of a job on DEST (most specific first). */
function destClasses(w: World, home: string, dest: string): PathClass[] {
  return [
    { name: 'staging', prefix: join(dest, '.brickpost', 'staging') },
    { name: 'undo', prefix: join(dest, '.brickpost', 'undo') },
    { name: 'state', prefix: join(dest, '.brickpost') },
    { name: 'dest', prefix: dest },
    { name: 'drive', prefix: w.drive1 },
    { name: 'drive', prefix: w.drive2 },
    { name: 'home', prefix: home },
  ];
}

interface DestJob {
  name: string;
  /** The subscriber's home before the job. */
  home: string;
  /** DEST before the job (null: a folder that does not exist yet). */
  base: string | null;
  args: (dest: string) => string[];
  old: { tree: Map<string, Node>; applied: string[] | null };
  next: { tree: Map<string, Node>; applied: string[] };
  only?: Matrix['only'];
}

function destMatrix(w: World, job: DestJob): Matrix {
  const cases = join(w.root, 'cases', job.name.replace(/\W+/g, '-'));
  const home = join(cases, 'home');
  const dest = join(cases, 'dest');
  const log = join(cases, 'calls.log');
  const reset = (): void => {
    rmSync(cases, { recursive: true, force: true });
    mkdirSync(cases, { recursive: true });
    sh('cp', ['-a', job.home, home]);
    if (job.base) sh('cp', ['-a', job.base, dest]);
  };
  const args = job.args(dest);
  return {
    name: job.name,
    ...(job.only ? { only: job.only } : {}),
    record() {
      reset();
      const { run, calls } = recordCalls(home, args, destClasses(w, home, dest), log, ENV);
      assert.equal(run.code, 0, `the run without a fault: ${run.stderr}`);
      return calls;
    },
    run(p) {
      reset();
      const o = runFault(home, args, p, log, ENV);
      const failed = checkOutcome(p, o);
      const name = `${p.fault.op}:${p.errno}:${p.fault.nth}:${p.path}`;
      const tree = treeOf(dest);
      const atOld = diffSnapshots(job.old.tree, tree).length === 0;
      const atNew = diffSnapshots(job.next.tree, tree).length === 0;
      const applied = appliedIds(dest);
      if (!failed) {
        assert.ok(atNew, `succeeded despite the fault, but DEST is not the new tree (${name}): ${diffSnapshots(job.next.tree, tree, 5).join('; ')}`);
        assert.deepEqual(applied, job.next.applied, name);
      } else {
        assert.ok(
          atOld || /again/.test(String(o.error?.hint)),
          `DEST changed, and the error does not say to run the command again (${name}): ${diffSnapshots(job.old.tree, tree, 5).join('; ')}`,
        );
        if (!(atNew && String(applied) === String(job.next.applied)))
          assert.deepEqual(applied, job.old.applied, `state.json records a shipment DEST does not hold (${name})`);
      }
      const again = brickpost(home, ['--json', ...args], { env: { ...process.env, ...ENV } });
      assert.equal(again.code, 0, `the same command without the fault (${name}): ${again.stdout.slice(-600)} ${again.stderr.slice(-600)}`);
      assert.deepEqual(diffSnapshots(job.next.tree, treeOf(dest), 10), [], `DEST after the run without the fault (${name})`);
      assert.deepEqual(appliedIds(dest), job.next.applied, `state.json after the run without the fault (${name})`);
    },
  };
}

/** ingest of the first shipment into a folder that does not exist yet. */
export function ingestFirst(w: World): Matrix {
  return destMatrix(w, {
    name: 'ingest, first shipment',
    home: w.sub0,
    base: null,
    args: (dest) => ['ingest', w.drive1, dest],
    old: { tree: new Map(), applied: null },
    next: { tree: w.tree1, applied: [w.id1] },
  });
}

/** ingest of the incremental shipment onto DEST at seq 1: what differs from a first one (DEST's own files read and retired, the undo area). */
export function ingestNext(w: World): Matrix {
  return destMatrix(w, {
    name: 'ingest, incremental shipment',
    home: w.sub1,
    base: w.dest1,
    args: (dest) => ['ingest', w.drive2, dest],
    old: { tree: w.tree1, applied: [w.id1] },
    next: { tree: w.tree2, applied: [w.id1, w.id2] },
    only: (phase) => /^(dest|undo) /.test(phase),
  });
}

/** rollback of DEST at seq 2 to seq 1. */
export function rollbackTo1(w: World): Matrix {
  return destMatrix(w, {
    name: 'rollback',
    home: w.sub,
    base: w.dest2,
    args: (dest) => ['rollback', dest, '--to', '1'],
    old: { tree: w.tree2, applied: [w.id1, w.id2] },
    next: { tree: w.tree1, applied: [w.id1] },
  });
}
