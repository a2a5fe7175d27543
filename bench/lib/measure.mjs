/**
 * Timing one benchmark step.
 *
 * A step is one command line (often `bash -c` for a pipeline or two tool
 * invocations) run under rusage.py, which reports wall seconds, CPU seconds
 * of the whole process tree and its peak memory. Before each step the page
 * cache can be dropped so every tool reads its input cold.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUSAGE = join(dirname(fileURLToPath(import.meta.url)), 'rusage.py');

/**
 * Flushes dirty pages and drops the page cache. Returns 'cold' when that
 * worked (needs root and a writable /proc/sys), 'warm' otherwise.
 */
export function dropCaches() {
  spawnSync('sync');
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3\n');
    return 'cold';
  } catch {
    return 'warm';
  }
}

/**
 * Runs ARGV (array; argv[0] looked up on PATH) and returns
 * {exitCode, wall, flush, user, sys, cpu, maxRssMB, treeRssMB, stageRssMB,
 * stdoutFile}. Options: cwd, env (merged over process.env), stdout (a file
 * path receiving the command's stdout; default discarded), stderr (a file
 * path; default inherited), sync (a directory whose filesystem is flushed
 * inside the timed region). Throws only when the step cannot be started.
 */
export async function measure(argv, { cwd, env, stdout, stderr, sync } = {}) {
  const work = await mkdtemp(join(tmpdir(), 'bench-rusage-'));
  const report = join(work, 'rusage.json');
  const outFd = stdout ? openSync(stdout, 'w') : 'ignore';
  const errFd = stderr ? openSync(stderr, 'w') : 'inherit';
  try {
    const args = [RUSAGE, report, ...(sync ? ['--sync', sync] : []), '--', ...argv];
    const child = spawn('python3', args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', outFd, errFd],
    });
    const code = await new Promise((res, rej) => {
      child.on('error', rej);
      child.on('close', res);
    });
    if (code !== 0) throw new Error(`rusage.py failed (exit ${code}) for: ${argv.join(' ')}`);
    const r = JSON.parse(await readFile(report, 'utf8'));
    const mb = (kib) => Math.round((kib * 1024) / 1e5) / 10;
    return {
      exitCode: r.exit_code,
      wall: r.wall,
      flush: r.flush,
      user: r.user,
      sys: r.sys,
      cpu: Math.round((r.user + r.sys) * 1000) / 1000,
      maxRssMB: mb(r.max_rss_kib),
      treeRssMB: mb(r.tree_rss_kib),
      stageRssMB: Object.fromEntries(Object.entries(r.stage_rss_kib).map(([k, v]) => [k, mb(v)])),
      stdoutFile: stdout ?? null,
    };
  } finally {
    if (typeof outFd === 'number') closeSync(outFd);
    if (typeof errFd === 'number') closeSync(errFd);
    await rm(work, { recursive: true, force: true });
  }
}

/** Quotes S for a POSIX shell command line. */
export function sh(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${String(s).replace(/'/g, `'\\''`)}'`;
}

/** First line of `CMD ARGS...` output (stdout, else stderr), or null when it cannot run. */
export function versionOf(cmd, args = ['--version']) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) return null;
  return ((r.stdout || '') + (r.stderr || '')).trim().split('\n')[0] || null;
}
