/**
 * The errno matrix's machinery: record the system calls one run of a
 * command makes (through the fault shim's log), sort them into phases (an
 * operation on a class of paths: the drive, staging, DEST's tree, DEST's
 * state folder, the home's key files…), pick the calls to fail (the first,
 * middle and last of each phase, or every one for the soak sweep), run the
 * command with each fault and check what the user sees: the documented
 * exit code for the errno (never 70), a message naming the path and what
 * failed, and a hint.
 *
 * SQLite files (*.sqlite and their -wal, -shm and -journal files) and the
 * lock files are left out: the catalog's and the journal's database errors
 * and the lock have tests of their own.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { TestContext } from 'vitest';
import { basename, dirname, join } from 'node:path';
import { lastEvent, type Run } from '../support.js';
import { brickpostWithFault, readFaultLog, type Fault, type FaultOp } from './shim.js';

/** A class of paths: calls on paths starting with `prefix` belong to `name` (the first match wins). */
export interface PathClass {
  name: string;
  prefix: string;
}

/** One recorded call: its kind, path (`a -> b` for two-path calls), class, and its nth among calls of its kind on paths containing `path`. */
export interface Call {
  op: FaultOp;
  path: string;
  cls: string;
  nth: number;
}

/** One fault to inject: a call of a phase failed with an errno. */
export interface Point {
  phase: string;
  errno: string;
  fault: Fault;
  /** The path the call names (the first for two-path calls). */
  path: string;
}

const SQLITE = /\.sqlite(-wal|-shm|-journal)?$/;
/** Lock files (DEST's `.brickpost/lock`, the home's `pack.lock`): the lock has tests of its own. */
const LOCKS = /\/(lock|pack\.lock)$/;

/**
 * The errno of each kind of call that a disk, a file system or a kernel
 * really returns for it, most telling first: an errno that call never
 * returns proves nothing.
 */
export const ERRNOS: Record<FaultOp, readonly string[]> = {
  open: ['EACCES', 'EIO', 'EROFS', 'ENOSPC', 'EMFILE', 'EPERM'],
  read: ['EIO'],
  write: ['EIO', 'ENOSPC', 'EDQUOT'],
  fsync: ['EIO', 'ENOSPC', 'EROFS'],
  rename: ['EROFS', 'EACCES', 'EBUSY', 'EIO', 'ENOSPC', 'ENOTDIR', 'EPERM'],
  mkdir: ['EROFS', 'EACCES', 'ENOSPC', 'EIO', 'ENOTDIR', 'EDQUOT'],
  unlink: ['EROFS', 'EACCES', 'EBUSY', 'EIO', 'EPERM'],
  link: ['EROFS', 'EACCES', 'EIO', 'ENOSPC', 'EPERM'],
  symlink: ['EROFS', 'EACCES', 'EIO', 'ENOSPC'],
  truncate: ['EIO', 'ENOSPC', 'EROFS', 'EBUSY'],
  copy: ['EIO', 'ENOSPC', 'EDQUOT'],
};

/** What the message says for each errno (lowercase), and the error code it maps to. */
export const EXPECT: Record<string, { says: RegExp; code: string }> = {
  EIO: { says: /i\/o error/, code: 'IO' },
  ENOSPC: { says: /no space left/, code: 'NO_SPACE' },
  EDQUOT: { says: /quota/, code: 'NO_SPACE' },
  EROFS: { says: /read-only file system/, code: 'READ_ONLY' },
  EACCES: { says: /permission denied/, code: 'PERMISSION' },
  EPERM: { says: /not permitted/, code: 'PERMISSION' },
  EBUSY: { says: /busy/, code: 'IO' },
  ENOTDIR: { says: /not a (directory|folder)/, code: 'IO' },
  EMFILE: { says: /too many open files/, code: 'IO' },
};

/** Every errno, each a system error of the environment: exit 5 (README, exit codes). */
export const ENVIRONMENT_EXIT = 5;

/** Names a run makes up (a shipment id, a temporary file's pid or random suffix): a fault matches them with `*`. */
const MADE_UP = /[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}|(?<=\.tmp-|probe-|\.brickpost-extract-)[0-9a-f]+/g;

/**
 * The path part a fault names a call by (shim.c): the whole path, anchored
 * at its end (`$`), so calls below a folder do not count as the folder's;
 * with made-up names, an fnmatch pattern of the whole path with `*` in
 * their place.
 */
export function partOf(path: string): string {
  if (!new RegExp(MADE_UP.source).test(path)) return `${path}$`;
  const escape = (s: string): string => s.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
  let out = '';
  let last = 0;
  for (const m of path.matchAll(MADE_UP)) {
    out += `${escape(path.slice(last, m.index))}*`;
    last = m.index + m[0].length;
  }
  return out + escape(path.slice(last));
}

/** Whether the shim counts a call on `path` for `part` (shim.c's rule). */
function counts(path: string, part: string): boolean {
  if (/(^|[^\\])\*/.test(part)) {
    const re = part.replace(/\\(.)|([*?])|([.+^${}()|[\]/])/g, (_, esc: string | undefined, glob: string | undefined, lit: string | undefined) =>
      esc !== undefined ? esc.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') : glob === '*' ? '.*' : glob === '?' ? '.' : `\\${lit!}`,
    );
    return new RegExp(`^${re}$`, 's').test(path);
  }
  return part.endsWith('$') ? path.endsWith(part.slice(0, -1)) : path.includes(part);
}

/**
 * Runs `brickpost --home HOME --json args…` and records the calls it makes,
 * in order, sorted into `classes` (others left out). A folder's fsync that
 * SQLite makes right after syncing one of its files there is SQLite's.
 */
export function recordCalls(home: string, args: string[], classes: PathClass[], log: string, env: NodeJS.ProcessEnv = {}): { run: Run; calls: Call[] } {
  rmSync(log, { force: true });
  const run = brickpostWithFault(home, ['--json', ...args], null, log, env);
  const all = readFaultLog(log);
  const calls: Call[] = [];
  let lastSync = '';
  for (const [i, c] of all.entries()) {
    const first = c.path.split(' -> ')[0]!;
    const sqliteDirSync = c.op === 'fsync' && SQLITE.test(lastSync) && dirname(lastSync) === first;
    if (c.op === 'fsync') lastSync = first;
    const cls = classes.find((k) => first === k.prefix || first.startsWith(`${k.prefix}/`))?.name;
    if (!cls || SQLITE.test(first) || LOCKS.test(first) || sqliteDirSync) continue;
    const part = partOf(c.op === 'rename' || c.op === 'link' || c.op === 'symlink' ? c.path : first);
    let nth = 0;
    for (let j = 0; j <= i; j++) if (all[j]!.op === c.op && counts(all[j]!.path, part)) nth++;
    calls.push({ op: c.op, path: c.path, cls, nth });
  }
  return { run, calls };
}

/**
 * How many faults a matrix takes: `fast` a few per phase (npm test),
 * `calls` every call with the errnos of its kind taken in turn, `all` every
 * call with every errno of its kind (the soak sweeps).
 */
export type Coverage = 'fast' | 'calls' | 'all';

/**
 * The faults of a matrix over `calls`. A phase is a class of paths and a
 * kind of call (`staging write`). With `fast`, each phase gets one fault, at
 * its first, middle or last call in turn, with the errnos its kind can
 * return taken in turn across phases (the home's key files: one phase);
 * then every errno of ERRNOS gets a fault where it has none yet, and every
 * class an EIO.
 */
export function pickPoints(calls: Call[], opts: { coverage?: Coverage; only?: (phase: string, c: Call) => boolean } = {}): Point[] {
  const phases = new Map<string, Call[]>();
  for (const c of calls) {
    const phase = `${c.cls} ${c.op}`;
    // Every command makes sure its home exists (mkdir, EEXIST): that is not a phase of the job.
    if (phase === 'home mkdir') continue;
    if (opts.only && !opts.only(phase, c)) continue;
    phases.set(phase, [...(phases.get(phase) ?? []), c]);
  }
  const points: Point[] = [];
  const add = (phase: string, c: Call, errno: string): void => {
    const part = partOf(c.op === 'rename' || c.op === 'link' || c.op === 'symlink' ? c.path : c.path.split(' -> ')[0]!);
    points.push({ phase, errno, path: c.path.split(' -> ')[0]!, fault: { op: c.op, errno, nth: c.nth, path: part } });
  };
  const turn = new Map<FaultOp, number>();
  const next = (op: FaultOp): string => {
    const n = turn.get(op) ?? 0;
    turn.set(op, n + 1);
    return ERRNOS[op][n % ERRNOS[op].length]!;
  };
  if (opts.coverage === 'all' || opts.coverage === 'calls') {
    for (const [phase, list] of phases) for (const c of list) for (const errno of opts.coverage === 'all' ? ERRNOS[c.op] : [next(c.op)]) add(phase, c, errno);
    return points;
  }
  const at = (list: Call[], k: number): Call => list[[0, Math.floor(list.length / 2), list.length - 1][k % 3]!]!;
  // The home's key files are read the same way by every command: its first phase stands for the rest.
  const picked = [...phases].filter(([phase], i, all) => !phase.startsWith('home ') || all.findIndex(([p]) => p.startsWith('home ')) === i);
  for (const [i, [phase, list]] of picked.entries()) add(phase, at(list, i), next(list[0]!.op));
  // An errno not yet taken goes to the phase that can return it with the fewest faults so far.
  const all = [...new Set(Object.values(ERRNOS).flat())];
  for (const errno of all) {
    if (points.some((p) => p.errno === errno)) continue;
    const can = picked.filter(([, list]) => ERRNOS[list[0]!.op].includes(errno));
    const load = (phase: string): number => points.filter((p) => p.phase === phase).length;
    const found = can.sort(([a], [b]) => load(a) - load(b))[0];
    if (found) add(found[0], at(found[1], 1), errno);
  }
  for (const cls of new Set(calls.map((c) => c.cls))) {
    if (points.some((p) => p.errno === 'EIO' && p.phase.startsWith(`${cls} `))) continue;
    const found = [...phases].find(([phase]) => phase.startsWith(`${cls} `));
    if (found) add(found[0], at(found[1], 2), 'EIO');
  }
  return points;
}

/** How a run with a fault ended. */
export interface Outcome {
  run: Run;
  /** The call the shim failed (undefined when the run never made it). */
  fired: { op: FaultOp; path: string } | undefined;
  /** The error event of a failed run. */
  error: Record<string, any> | undefined;
}

/** Runs `brickpost --home HOME --json args…` with the fault of `p`. */
export function runFault(home: string, args: string[], p: Point, log: string, env: NodeJS.ProcessEnv = {}): Outcome {
  rmSync(log, { force: true });
  const run = brickpostWithFault(home, ['--json', ...args], p.fault, log, env);
  const fired = readFaultLog(log).find((c) => c.fired);
  let error: Record<string, any> | undefined;
  if (run.code !== 0) {
    const ev = lastEvent(run);
    error = ev.type === 'error' ? ev : undefined;
  }
  return { run, fired, error };
}

/** A readable name of a case, for assertion messages. */
export function describeCase(p: Point, o: Outcome): string {
  return `${p.fault.op}:${p.errno}:${p.fault.nth}:${p.path} (phase ${p.phase}) fired at ${o.fired ? `${o.fired.op} ${o.fired.path}` : 'nothing'}; exit ${o.run.code}\n${o.run.stderr.slice(-1500)}`;
}

/**
 * What a failed run must say: the errno's exit code (5) and error code,
 * never an internal error; a message naming the path the call failed on (its
 * file name at least) and what the system said; a hint. A run that succeeds
 * despite the fault must not have lost a failed fsync without a warning (the
 * caller checks that its result is whole).
 * @returns whether the run failed
 */
export function checkOutcome(p: Point, o: Outcome): boolean {
  const name = describeCase(p, o);
  assert.ok(o.fired, `the fault never fired: ${name}`);
  if (o.run.code === 0) {
    const warned = /brickpost: warning: /.test(o.run.stderr) || o.run.stdout.includes('"type":"warning"');
    assert.ok(warned || o.fired.op !== 'fsync', `a failed fsync went unreported: ${name}`);
    return false;
  }
  assert.notEqual(o.run.code, 70, `an environment error reported as a bug: ${name}`);
  assert.ok(o.error, `no error event: ${name}`);
  const e = o.error;
  assert.notEqual(e.code, 'INTERNAL', name);
  assert.equal(o.run.code, ENVIRONMENT_EXIT, `exit code: ${name}`);
  const want = EXPECT[p.errno]!;
  assert.equal(e.code, want.code, `error code: ${name}`);
  const message = String(e.message);
  assert.match(message, want.says, `the message says what the system said: ${name}`);
  const named = o.fired.path
    .split(' -> ')
    .some((q) => message.includes(q) || message.includes(basename(q).replace(/\.tmp-.*$/, '')) || message.includes(q.replace(/\.tmp-.*$/, '')) || e.path === q);
  assert.ok(named, `the message names the path: ${name}`);
  assert.ok(typeof e.hint === 'string' && e.hint.length > 10, `a hint: ${name}`);
  assert.doesNotMatch(e.hint, /bug/, name);
  return true;
}

/** The shipment folders (complete and `.part`) on a drive. */
export function shipmentsOn(drive: string): { complete: string[]; part: string[] } {
  const dir = join(drive, 'brickpost');
  if (!existsSync(dir)) return { complete: [], part: [] };
  const names = readdirSync(dir);
  return {
    complete: names.filter((n) => /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/.test(n)),
    part: names.filter((n) => n.endsWith('.part')),
  };
}

/** DEST's state.json (the shipments applied), or null. */
export function appliedIds(dest: string): string[] | null {
  const f = join(dest, '.brickpost', 'state.json');
  if (!existsSync(f)) return null;
  return (JSON.parse(readFileSync(f, 'utf8')) as { applied: Array<{ shipment: string }> }).applied.map((a) => a.shipment);
}

/** One command's matrix, as the test files and the sweep run it. */
export interface CommandMatrix {
  name: string;
  /** The calls of a run without a fault. */
  record(): Call[];
  /** Which phases the fast matrix takes (all when absent). */
  only?: (phase: string, c: Call) => boolean;
  /** Runs one case and checks it; throws an AssertionError naming the case. */
  run(p: Point): void;
}

/**
 * Records `m`'s calls, picks its faults and runs each case; every case runs
 * even after one fails, and the test then fails naming each failed case.
 */
export async function runMatrix(t: TestContext, m: CommandMatrix, coverage: Coverage = 'fast'): Promise<void> {
  const calls = m.record();
  const points = pickPoints(calls, { coverage, ...(m.only && coverage === 'fast' ? { only: m.only } : {}) });
  assert.ok(points.length > 0, `${m.name}: no calls recorded`);
  const failed: string[] = [];
  for (const p of points) {
    try {
      m.run(p);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      failed.push(`${p.phase}: ${p.errno} at call ${p.fault.nth} on ${basename(p.path)}\n  ${why.replace(/\n/g, '\n  ')}`);
    }
  }
  await t.annotate(`${m.name}: ${points.length} cases, ${failed.length} failed`);
  assert.equal(failed.length, 0, `${m.name}: ${failed.length} of ${points.length} cases failed:\n${failed.join('\n')}`);
}
