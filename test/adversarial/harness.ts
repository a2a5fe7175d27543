/**
 * What every adversarial case checks, in one place: the real CLI run under
 * bench/lib/rusage.py (peak memory of the process), its exit code one of
 * the documented ones, its error event naming the problem, the destination
 * and everything around it unchanged, byte for byte.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EXIT_CODES } from '@brickpost/manifest';
import { CLI, ROOT } from '../support.js';

const RUSAGE = join(ROOT, 'bench', 'lib', 'rusage.py');
/** No hostile input may make brickpost grow past this (it streams; a bomb or a huge count must not allocate). */
export const MAX_RSS_MB = 320;

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  events: Array<Record<string, any>>;
  /** Peak resident set of the brickpost process, MB. */
  rssMb: number;
}

/** Runs `brickpost --home HOME --json ARGS` under rusage.py. */
export function run(home: string, args: string[], opts: SpawnSyncOptions = {}): Outcome {
  const dir = mkdtempSync(join(home, '..', 'rusage-'));
  chmodSync(dir, 0o777); // also when brickpost runs as another user
  try {
    const out = join(dir, 'r.json');
    const r = spawnSync('python3', [RUSAGE, out, '--', process.execPath, CLI, '--home', home, '--json', ...args], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      timeout: 120_000,
      ...opts,
    });
    if (r.status !== 0) throw new Error(`rusage.py failed (${r.status ?? r.signal}): ${String(r.stderr)}`);
    const usage = JSON.parse(readFileSync(out, 'utf8')) as { max_rss_kib: number; exit_code: number };
    if (usage.exit_code < 0) throw new Error(`brickpost ${args.join(' ')} died of signal ${-usage.exit_code}: ${String(r.stderr)}`);
    const stdout = String(r.stdout);
    const events = stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, any>);
    return { code: usage.exit_code, stdout, stderr: String(r.stderr), events, rssMb: usage.max_rss_kib / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A digest of a tree: every path (lstat type, mode, size, content or link target), sorted; `skip` paths (relative) left out. */
export function treeDigest(dir: string, skip: string[] = []): string {
  if (!existsSync(dir)) return 'absent';
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const rel = relative(dir, p);
      if (skip.includes(rel)) continue;
      const st = lstatSync(p);
      const kind = st.isDirectory() ? 'd' : st.isFile() ? 'f' : st.isSymbolicLink() ? 'l' : 'o';
      h.update(`${rel}\0${kind}\0${st.mode & 0o7777}\0${st.size}\0`);
      if (st.isFile()) h.update(createHash('sha256').update(readFileSync(p)).digest());
      if (st.isSymbolicLink()) h.update(readlinkSync(p));
      h.update('\n');
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return h.digest('hex');
}

const DOCUMENTED = new Set<number>(Object.values(EXIT_CODES));

/**
 * Asserts a refusal: a documented non-zero exit code (`exit`), an error
 * event with `code` whose message contains `names` (the offending object,
 * as the message quotes it), and peak memory within MAX_RSS_MB.
 */
export function assertRefused(o: Outcome, want: { code: string; exit: number; names?: string | RegExp }): Record<string, any> {
  const show = `exit ${o.code}\n${o.stdout.slice(-1500)}\n${o.stderr.slice(-1500)}`;
  assert.ok(o.code !== 0 && DOCUMENTED.has(o.code), `exit code ${o.code} is not a documented failure\n${show}`);
  assert.equal(o.code, want.exit, show);
  const ev = o.events[o.events.length - 1];
  assert.equal(ev?.type, 'error', show);
  const problem = o.events.find((e) => e.type === 'summary')?.result?.problems?.find((p: { code: string }) => p.code === want.code);
  const message: string = problem?.message ?? ev.message;
  assert.ok(ev.code === want.code || problem, `error ${ev.code}, expected ${want.code}\n${show}`);
  if (typeof want.names === 'string') assert.ok(message.includes(want.names), `message ${JSON.stringify(message)} does not name ${want.names}`);
  else if (want.names) assert.match(message, want.names);
  assertBounded(o);
  return ev;
}

/** Peak memory within MAX_RSS_MB. */
export function assertBounded(o: Outcome): void {
  assert.ok(o.rssMb <= MAX_RSS_MB, `peak RSS ${o.rssMb.toFixed(0)} MB > ${MAX_RSS_MB} MB`);
}
