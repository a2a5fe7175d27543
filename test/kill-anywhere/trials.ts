/**
 * One kill trial: run a scenario's command, SIGKILL it after each given
 * delay (the first run is the plain command; a further delay kills the run
 * that recovers from the previous kill), check what every kill left
 * behind, then run the command once more without a kill and check the
 * result. A trial with no delays is the uninterrupted reference run.
 *
 * Ingest is re-run as it was (it resumes its own journal); pack with
 * `--resume` when the catalog holds an interrupted shipment, else plain.
 * Every trial works in a folder of its own, with copies of the homes it
 * uses, and leaves it behind only when it found a problem.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { diffSnapshots, lastEvent, sh } from '../support.js';
import {
  catalogKnows,
  catalogTree,
  commitPending,
  contentKey,
  driveContents,
  integrity,
  interruptedShipment,
  leftovers,
  partialFiles,
  sealingShipment,
  treeOf,
} from './inspect.js';
import { describeOutcome, run, type Outcome } from './run.js';
import { DATASET, packArgs, type IngestScenario, type PackScenario, type World } from './world.js';

/** What one trial did and found. */
export interface Trial {
  scenario: string;
  index: number;
  /** Runs that our SIGKILL ended. */
  kills: number;
  /** Wall time of the last (uninterrupted) run, in ms. */
  ms: number;
  /** Every run: the command, the kill delay if any, and how it ended. */
  runs: string[];
  problems: string[];
  /** Problems of an engine bug this harness found (KNOWN), checked by a test of their own. */
  known: string[];
  /** Pack: the catalog's record of the last shipment's tree (catalogTree). */
  tree?: string[];
}

/**
 * Engine bugs this harness found, now fixed: their problems are kept apart
 * and checked by a test of their own, named after the bug.
 */
export const KNOWN = {
  orphanPart: 'a pack killed between creating ID.part on a drive and recording ID in the catalog left an orphan .part; the row now comes first',
  stateTmp: 'an ingest killed between writing a state.json.tmp-* file and its rename left that file; the lock now removes it',
};

/** A temporary file of writeAtomic (io/sync.ts). */
const STATE_TMP = /^state\.json\.tmp-[0-9a-f]+$/;

function trialDir(w: World, name: string, index: number): string {
  const dir = join(w.root, 'trials', `${name}-${index}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

function note(w: World, t: Trial, args: string[], delay: number | undefined, o: Outcome): void {
  const cmd = `brickpost ${args.join(' ')}`.split(w.root).join('$ROOT');
  t.runs.push(`run ${t.runs.length + 1}: ${cmd}${delay === undefined ? '' : ` with SIGKILL at ${delay} ms`}: ${describeOutcome(o)}`);
}

/** Runs one ingest (or rollback) trial of scenario `sc`, killed after each of `delays` (ms). */
export async function ingestTrial(w: World, sc: IngestScenario, index: number, delays: number[]): Promise<Trial> {
  const t: Trial = { scenario: sc.name, index, kills: 0, ms: 0, runs: [], problems: [], known: [] };
  const dir = trialDir(w, sc.name, index);
  const dest = join(dir, 'dest');
  if (sc.base) sh('cp', ['-a', sc.base, dest]);
  const sub = join(dir, 'sub');
  sh('cp', ['-a', w.sub, sub]);
  const args = sc.rollbackTo === undefined ? ['--quiet', 'ingest', ...sc.drives, dest] : ['--quiet', 'rollback', dest, '--to', sc.rollbackTo];
  const keys = new Set([contentKey(sc.old), contentKey(sc.next)]);
  const databases = [join(dest, '.brickpost', 'journal.sqlite'), join(sub, 'catalog.sqlite')];
  let done = false;
  for (const delay of delays) {
    const o = await run(sub, args, delay);
    note(w, t, args, delay, o);
    if (!o.killed) {
      if (o.code !== 0) t.problems.push(`run ${t.runs.length} failed before the kill: exit ${o.code}`);
      done = true;
      break;
    }
    t.kills++;
    const seen = treeOf(dest);
    const after = `after the kill of run ${t.runs.length}`;
    for (const p of partialFiles(seen, sc.old, sc.next)) t.problems.push(`${after}: ${p}`);
    for (const p of databases.flatMap(integrity)) t.problems.push(`${after}: ${p}`);
    if (!keys.has(contentKey(seen)) && !commitPending(dest))
      t.problems.push(`${after}: DEST is neither the old nor the new tree, and no commit is journaled to finish it`);
  }
  if (!done) {
    const o = await run(sub, args);
    note(w, t, args, undefined, o);
    t.ms = o.ms;
    if (o.code !== 0) t.problems.push(`the re-run without a kill failed: exit ${o.code}`);
  }
  for (const d of diffSnapshots(sc.next, treeOf(dest))) t.problems.push(`final DEST: ${d}`);
  for (const p of databases.flatMap(integrity)) t.problems.push(`final: ${p}`);
  for (const p of leftovers(dest)) (STATE_TMP.test(p) ? t.known : t.problems).push(`final: DEST/.brickpost/${p} is left over`);
  if (t.problems.length === 0) rmSync(dir, { recursive: true, force: true });
  return t;
}

/**
 * Runs one pack trial of scenario `sc`, killed after each of `delays` (ms);
 * `reference` is the catalog tree of an uninterrupted run, which the last
 * shipment's must equal.
 */
export async function packTrial(w: World, sc: PackScenario, index: number, delays: number[], reference?: string[]): Promise<Trial> {
  const t: Trial = { scenario: sc.name, index, kills: 0, ms: 0, runs: [], problems: [], known: [] };
  const dir = trialDir(w, sc.name, index);
  const home = join(dir, 'home');
  sh('cp', ['-a', sc.template, home]);
  const drives = Array.from({ length: sc.drives }, (_, i) => join(dir, `drive-${'abc'[i]}`));
  for (const d of drives) mkdirSync(d);
  const sub = join(dir, 'sub');
  sh('cp', ['-a', w.sub, sub]);
  const catalog = join(home, 'catalog.sqlite');
  const plain = ['--json', ...packArgs(w, drives)];
  // Shipments a killed run left complete and sealed (a plain re-run then packs another): each must stay on the drives.
  const sealed: string[] = [];
  let resume = false;
  let done: Outcome | null = null;
  for (const delay of delays) {
    const args = resume ? [...plain, '--resume'] : plain;
    const o = await run(home, args, delay);
    note(w, t, args, delay, o);
    if (!o.killed) {
      if (o.code !== 0) t.problems.push(`run ${t.runs.length} failed before the kill: exit ${o.code}`);
      done = o;
      break;
    }
    t.kills++;
    const after = `after the kill of run ${t.runs.length}`;
    for (const p of integrity(catalog)) t.problems.push(`${after}: ${p}`);
    const interrupted = interruptedShipment(home, DATASET);
    resume = interrupted !== null;
    const complete = [...new Set(drives.flatMap((d) => driveContents(d).complete))].filter((id) => !sealed.includes(id));
    // A shipment under its final name must be whole: it verifies (on a drive of a set, as far as that drive goes).
    for (const id of complete) {
      for (const d of drives.filter((x) => driveContents(x).complete.includes(id))) {
        const v = await run(sub, ['--quiet', 'verify', d, '--shipment', id]);
        if (!(v.code === 0 || (sc.drives > 1 && v.code === 8)))
          t.problems.push(`${after}: ${d.split(w.root).join('$ROOT')} shows shipment ${id} as complete, but verify says: ${describeOutcome(v)}`);
      }
      if (id !== interrupted) sealed.push(id);
    }
    // Killed between recording the shipment sealed and renaming its bags: the next run puts it in place.
    const finishing = sealingShipment(home, DATASET);
    if (finishing !== null && !sealed.includes(finishing)) sealed.push(finishing);
  }
  if (!done) {
    const args = resume ? [...plain, '--resume'] : plain;
    done = await run(home, args);
    note(w, t, args, undefined, done);
    if (done.code !== 0) t.problems.push(`the re-run without a kill failed: exit ${done.code}`);
  }
  t.ms = done.ms;
  const last = done.code === 0 ? (lastEvent({ code: 0, stdout: done.stdout, stderr: '' }).result?.shipmentId as string | undefined) : undefined;
  const want = [...sealed, ...(last ? [last] : [])];
  for (const p of integrity(catalog)) t.problems.push(`final: ${p}`);
  if (last) t.tree = catalogTree(home, last, sc.shipped);
  if (t.tree && reference) {
    const differs = t.tree.filter((l, i) => l !== reference[i]).slice(0, 5);
    if (differs.length || t.tree.length !== reference.length) {
      t.problems.push(
        `final: the catalog's tree of shipment ${last} (${t.tree.length} lines) differs from an uninterrupted run's (${reference.length}): ${differs.join('; ') || 'lines missing'}`,
      );
    }
  }
  const left = interruptedShipment(home, DATASET);
  if (left) t.problems.push(`final: the catalog still holds shipment ${left} as interrupted`);
  for (const d of drives) {
    const c = driveContents(d);
    const where = d.split(w.root).join('$ROOT');
    for (const part of c.parts) {
      const id = part.slice(0, -'.part'.length);
      if (catalogKnows(home, id)) t.problems.push(`final: ${where} still holds ${part}`);
      else t.known.push(`final: ${where} still holds ${part}, a shipment the catalog does not know`);
    }
    if (c.other.length) t.problems.push(`final: ${where} holds unexpected entries: ${c.other.join(', ')}`);
    if (JSON.stringify(c.complete) !== JSON.stringify([...want].sort())) {
      t.problems.push(`final: ${where} holds complete shipments [${c.complete.join(', ')}], expected one per pack run: [${want.join(', ')}]`);
    }
  }
  if (t.problems.length === 0) await checkShipments(w, sc, t, dir, sub, drives, want);
  if (t.problems.length === 0) rmSync(dir, { recursive: true, force: true });
  return t;
}

/** Each shipment verifies (deeply from its first drive, which reads the whole set) and, ingested in order, gives the source tree. */
async function checkShipments(w: World, sc: PackScenario, t: Trial, dir: string, sub: string, drives: string[], ids: string[]): Promise<void> {
  const dest = join(dir, 'dest');
  if (sc.base) sh('cp', ['-a', sc.base, dest]);
  // Deep from the first drive reads the whole set; the fixity of the others' files (parity, recovery data) is level 1.
  const verifies = ids.flatMap((id) =>
    drives.map(async (d, i) => {
      const args = ['--quiet', 'verify', ...(i === 0 ? ['--deep'] : []), d, '--shipment', id];
      const v = await run(sub, args);
      if (v.code !== 0) t.problems.push(`final: brickpost ${args.slice(1).join(' ').split(w.root).join('$ROOT')}: ${describeOutcome(v)}`);
    }),
  );
  const ingests = (async () => {
    for (const id of ids) {
      const r = await run(sub, ['--quiet', 'ingest', ...drives, dest, '--shipment', id]);
      if (r.code !== 0) return void t.problems.push(`final: ingest of shipment ${id}: ${describeOutcome(r)}`);
    }
    for (const d of diffSnapshots(sc.want, treeOf(dest))) t.problems.push(`final: ingested tree: ${d}`);
  })();
  await Promise.all([...verifies, ingests]);
  if (existsSync(dest)) rmSync(dest, { recursive: true, force: true });
}
