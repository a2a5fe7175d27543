/**
 * The errno matrix of the commands that write or read drives: pack (onto an
 * empty drive), verify (keyless and --deep), repair (a drive with a bad
 * block its recovery data covers) and extract (the whole shipment into a
 * new folder). Every case starts from fresh copies at the same paths, fails
 * one call, and checks, besides what checkOutcome checks:
 *
 * - pack: no drive claims a complete shipment after a failure (only a
 *   `.part` folder may be left), and the same pack without the fault then
 *   writes one complete shipment, seq 1 (the failed run recorded none); a
 *   pack that succeeds despite the fault wrote one that verifies;
 * - verify: the same verify without the fault passes;
 * - repair: the same repair without the fault succeeds and the drive then
 *   verifies;
 * - extract: the same extract without the fault succeeds, or refuses to
 *   replace what the failed run wrote (exit 2, as documented) and succeeds
 *   into an empty folder; what it writes is the shipment's tree.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, lastEvent, sh, shipmentDir, snapshot, type Run } from '../support.js';
import { checkOutcome, recordCalls, runFault, shipmentsOn, type Call, type CommandMatrix, type PathClass, type Point } from './matrix.js';
import { ENV, type World } from './world.js';

function bp(home: string, args: string[]): Run {
  return brickpost(home, ['--json', ...args], { env: { ...process.env, ...ENV } });
}

function succeeded(r: Run, what: string): Record<string, any> {
  assert.equal(r.code, 0, `${what}: ${r.stdout.slice(-600)} ${r.stderr.slice(-600)}`);
  return lastEvent(r);
}

const caseName = (p: Point): string => `${p.fault.op}:${p.errno}:${p.fault.nth}:${p.path}`;

interface DriveJob {
  name: string;
  only?: CommandMatrix['only'];
  /** The home the command runs in (copied for each case). */
  home: string;
  /** Folders copied for each case, to the names given (relative to the case folder). */
  copies: Array<[string, string]>;
  args: (at: (rel: string) => string) => string[];
  classes: (at: (rel: string) => string, home: string) => PathClass[];
  /** Checks after the case's run and the run without the fault. */
  check: (p: Point, failed: boolean, at: (rel: string) => string, home: string) => void;
}

function driveMatrix(w: World, job: DriveJob): CommandMatrix {
  const cases = join(w.root, 'cases', job.name.replace(/\W+/g, '-'));
  const at = (rel: string): string => join(cases, rel);
  const home = at('home');
  const log = at('calls.log');
  const reset = (): void => {
    rmSync(cases, { recursive: true, force: true });
    mkdirSync(cases, { recursive: true });
    sh('cp', ['-a', job.home, home]);
    for (const [from, to] of job.copies) {
      if (from === '') mkdirSync(at(to));
      else sh('cp', ['-a', from, at(to)]);
    }
  };
  const args = job.args(at);
  return {
    name: job.name,
    ...(job.only ? { only: job.only } : {}),
    record() {
      reset();
      const { run, calls } = recordCalls(home, args, job.classes(at, home), log, ENV);
      assert.equal(run.code, 0, `the run without a fault: ${run.stderr}`);
      return calls;
    },
    run(p) {
      reset();
      const o = runFault(home, args, p, log, ENV);
      job.check(p, checkOutcome(p, o), at, home);
    },
  };
}

/** pack of the source onto an empty drive, as the first shipment of its dataset. */
export function packMatrix(w: World): CommandMatrix {
  const args = (at: (rel: string) => string): string[] => ['pack', w.src, '--to', at('drive'), '--recipient', w.recipient, '--dataset', 'errno-pack'];
  return driveMatrix(w, {
    name: 'pack',
    home: w.pub,
    copies: [['', 'drive']],
    args,
    classes: (at, home) => [
      { name: 'drive', prefix: at('drive') },
      { name: 'source', prefix: w.src },
      { name: 'home', prefix: home },
    ],
    check(p, failed, at, home) {
      const drive = at('drive');
      let on = shipmentsOn(drive);
      if (failed) {
        assert.deepEqual(on.complete, [], `a failed pack left a complete shipment on the drive (${caseName(p)})`);
        const again = bp(home, args(at));
        const r = succeeded(again, `the same pack without the fault (${caseName(p)})`);
        // A pack that failed once its shipment was sealed (a rename of the bag into place) left it
        // 'sealing': the next pack puts that shipment in place, says so, and follows it; any earlier
        // failure uses up no sequence number.
        const finished = /"code":"SHIPMENT_FINISHED"/.test(again.stdout);
        assert.equal(r.result.seq, finished ? 2 : 1, `the failed pack recorded a shipment (${caseName(p)})`);
        if (finished) assert.ok(p.phase.includes('rename'), `only a failed rename leaves a sealed shipment to finish (${caseName(p)})`);
        on = shipmentsOn(drive);
        assert.equal(on.complete.length, finished ? 2 : 1, `complete shipments (${caseName(p)}): ${on.complete.join(', ')}`);
        assert.deepEqual(on.part, [], `nothing unfinished is left (${caseName(p)})`);
        return;
      }
      assert.equal(on.complete.length, 1, `one complete shipment (${caseName(p)}): ${on.complete.join(', ')}`);
      assert.deepEqual(on.part, [], `nothing unfinished is left (${caseName(p)})`);
      // A pack that went on despite the fault must still have written a shipment that verifies.
      if (!failed) succeeded(bp(w.sub, ['verify', drive]), `verify of the packed drive (${caseName(p)})`);
    },
  });
}

/** verify (keyless, or --deep) of an intact drive. */
export function verifyMatrix(w: World, deep: boolean): CommandMatrix {
  const args = (at: (rel: string) => string): string[] => ['verify', ...(deep ? ['--deep'] : []), at('drive')];
  return driveMatrix(w, {
    name: deep ? 'verify --deep' : 'verify',
    // What --deep adds is reading the payload again, in worker threads.
    ...(deep ? { only: (_: string, c: Call) => c.path.includes('/data/') } : {}),
    home: w.sub,
    copies: [[w.drive1, 'drive']],
    args,
    classes: (at, home) => [
      { name: 'drive', prefix: at('drive') },
      { name: 'home', prefix: home },
    ],
    check(p, failed, at, home) {
      if (failed) succeeded(bp(home, args(at)), `the same verify without the fault (${caseName(p)})`);
    },
  });
}

/** Flips bytes of the largest pack of `drive`'s shipment: a bad block its recovery data covers. */
export function damage(drive: string): void {
  const dir = join(shipmentDir(drive), 'data', 'packs');
  const packs = readdirSync(dir, { recursive: true })
    .map((f) => join(dir, String(f)))
    .filter((f) => f.endsWith('.age'));
  const big = packs.sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
  const old = readFileSync(big).subarray(70_000, 71_000);
  const fd = openSync(big, 'r+');
  writeSync(fd, Buffer.from(old.map((b) => b ^ 0xa5)), 0, old.length, 70_000);
  closeSync(fd);
}

/** repair of a drive with one bad block. */
export function repairMatrix(w: World, damaged: string): CommandMatrix {
  const args = (at: (rel: string) => string): string[] => ['repair', at('drive')];
  return driveMatrix(w, {
    name: 'repair',
    home: w.sub,
    copies: [[damaged, 'drive']],
    args,
    classes: (at, home) => [
      { name: 'drive', prefix: at('drive') },
      { name: 'home', prefix: home },
    ],
    check(p, failed, at, home) {
      if (failed) succeeded(bp(home, args(at)), `the same repair without the fault (${caseName(p)})`);
      succeeded(bp(home, ['verify', at('drive')]), `verify after the repair (${caseName(p)})`);
    },
  });
}

/** extract of the whole first shipment into a new folder. */
export function extractMatrix(w: World): CommandMatrix {
  const args = (at: (rel: string) => string, to = 'out'): string[] => ['extract', w.drive1, '--to', at(to)];
  return driveMatrix(w, {
    name: 'extract',
    // Reading the drive is verify's matrix; what extract adds is writing the target.
    only: (phase: string) => phase.startsWith('target ') || phase === 'drive read',
    home: w.sub,
    copies: [],
    args: (at) => args(at),
    classes: (at, home) => [
      { name: 'target', prefix: at('out') },
      { name: 'drive', prefix: w.drive1 },
      { name: 'home', prefix: home },
    ],
    check(p, failed, at, home) {
      let out = at('out');
      if (failed) {
        const again = bp(home, args(at));
        if (again.code !== 0) {
          const e = lastEvent(again);
          assert.ok(
            again.code === 2 && /does not replace/.test(String(e.message)),
            `the same extract without the fault (${caseName(p)}): ${again.stderr.slice(-600)}`,
          );
          out = at('out-2');
          succeeded(bp(home, args(at, 'out-2')), `extract into an empty folder (${caseName(p)})`);
        }
      }
      assert.deepEqual(diffSnapshots(w.tree1, snapshot(out), 10), [], `what extract wrote (${caseName(p)})`);
    },
  });
}
