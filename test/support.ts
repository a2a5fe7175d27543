/**
 * Shared helpers of the cross-package tests: temp folders, running the real
 * `brickpost` command, generating datasets with make_dataset.py, and
 * snapshots of trees to compare byte for byte.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, lstatSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = join(ROOT, 'apps', 'cli', 'bin', 'brickpost.js');
/** The repository's dataset generator (deterministic; see its --help). */
export const MAKE_DATASET = join(ROOT, 'bench', 'make_dataset.py');

/** The folders tempDir made in this process and has not removed yet. */
const made = new Set<string>();

/**
 * A fresh temp folder, removed after the test file that made it (test/setup.ts)
 * unless BRICKPOST_KEEP_TMP is set. Vitest ends a file's process without
 * running its `exit` listeners, so cleanup cannot wait for the process's end.
 */
export function tempDir(prefix = 'bp-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  if (!process.env.BRICKPOST_KEEP_TMP) made.add(d);
  return d;
}

/** Removes every folder tempDir made in this process. */
export function removeTempDirs(): void {
  for (const d of made) rmSync(d, { recursive: true, force: true });
  made.clear();
}

/** No single command of a test may take longer (a hang fails the test instead of the run). */
export const COMMAND_TIMEOUT = 180_000;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `brickpost --home HOME args…` and returns its exit code and output. */
export function brickpost(home: string, args: string[], opts: SpawnSyncOptions = {}): Run {
  const r = spawnSync(process.execPath, [CLI, '--home', home, ...args], { encoding: 'utf8', maxBuffer: 256 << 20, timeout: COMMAND_TIMEOUT, ...opts });
  if (r.signal)
    throw new Error(
      `brickpost ${args.join(' ')} was killed by ${r.signal}${r.signal === 'SIGTERM' ? ` after ${COMMAND_TIMEOUT / 1000} s` : ''}; stderr: ${String(r.stderr)}`,
    );
  return { code: r.status ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** The last NDJSON event of a --json run. */
export function lastEvent(r: Run): Record<string, any> {
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  return JSON.parse(lines[lines.length - 1] ?? '{}');
}

/**
 * A publisher home and a subscriber home that trusts it (key named
 * "publisher"), each with a fresh identity; returns the subscriber's age
 * recipient, to pack for.
 */
export function publisherAndSubscriber(pub: string, sub: string): string {
  for (const [h, name] of [
    [pub, 'publisher'],
    [sub, 'subscriber'],
  ] as const)
    assert.equal(brickpost(h, ['keygen', '--name', name]).code, 0);
  const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
  assert.equal(brickpost(sub, ['trust', 'add', pk, '--name', 'publisher']).code, 0);
  return JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient;
}

/** The error event of a failed --json run (asserting there is one). */
export function errorEvent(r: Run): Record<string, any> {
  const ev = lastEvent(r);
  assert.equal(ev.type, 'error', `expected an error event, got: ${r.stdout.slice(-500)} ${r.stderr.slice(-500)}`);
  return ev;
}

/** Runs an external command, throwing with its stderr when it fails. */
export function sh(cmd: string, args: string[], opts: SpawnSyncOptions = {}): Buffer {
  const r = spawnSync(cmd, args, { maxBuffer: 1 << 30, timeout: COMMAND_TIMEOUT, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr)}`);
  return r.stdout as Buffer;
}

/** True when `tool` runs (used to state skip reasons). */
export function hasTool(tool: string, args = ['--version']): boolean {
  return spawnSync(tool, args, { stdio: 'ignore' }).status !== null && !spawnSync(tool, args).error;
}

/** Generates a deterministic dataset with make_dataset.py. */
export function makeDataset(target: string, size: string, seed = 1): void {
  if (!existsSync(MAKE_DATASET)) throw new Error(`make_dataset.py not found at ${MAKE_DATASET}`);
  sh('python3', [MAKE_DATASET, target, '--size', size, '--seed', String(seed), '-q']);
}

export interface Node {
  /** A symbolic link's target is its `sha256`, so snapshots compare it. */
  type: 'file' | 'dir' | 'link' | 'other';
  size: number;
  mode: number;
  mtimeMs: number;
  sha256?: string;
}

/** Every entry under root (except a destination's .brickpost folder) with its metadata and content hash. */
export function snapshot(root: string): Map<string, Node> {
  const out = new Map<string, Node>();
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === '' && name === '.brickpost') continue;
      const p = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(p);
      const base = { size: st.isFile() ? st.size : 0, mode: st.mode & 0o7777, mtimeMs: Math.floor(st.mtimeMs) };
      if (st.isDirectory()) {
        out.set(r, { type: 'dir', ...base });
        walk(p, r);
      } else if (st.isFile()) {
        out.set(r, { type: 'file', ...base, sha256: createHash('sha256').update(readFileSync(p)).digest('hex') });
      } else if (st.isSymbolicLink()) {
        out.set(r, { type: 'link', ...base, mode: 0, sha256: readlinkSync(p) });
      } else out.set(r, { type: 'other', ...base });
    }
  };
  walk(root, '');
  return out;
}

/** Differences between two snapshots, as readable lines (empty when equal). */
export function diffSnapshots(a: Map<string, Node>, b: Map<string, Node>, limit = 20): string[] {
  const d: string[] = [];
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w) d.push(`missing: ${k}`);
    else if (JSON.stringify(v) !== JSON.stringify(w)) d.push(`differs: ${k}: ${JSON.stringify(v)} vs ${JSON.stringify(w)}`);
    if (d.length >= limit) return d;
  }
  for (const k of b.keys()) if (!a.has(k)) d.push(`extra: ${k}`);
  return d.slice(0, limit);
}

/** The one shipment folder on a drive. */
export function shipmentDir(drive: string): string {
  // Only names of the shipment id grammar (FORMAT.md §3.2) are shipments: not .part folders nor custody logs.
  const ids = readdirSync(join(drive, 'brickpost')).filter((n) => /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/.test(n));
  if (ids.length !== 1) throw new Error(`expected one shipment on ${drive}, found ${ids.join(', ')}`);
  return join(drive, 'brickpost', ids[0]!);
}

/** Every file of a bag's data/packs, by path. */
export function packFiles(bag: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(join(d, e.name));
    }
  };
  walk(join(bag, 'data', 'packs'));
  return out;
}

/** A pack's plaintext after its header frame (which names the shipment), decrypted by the age tool. */
export function packFrames(pack: string, identity: string): Buffer {
  const plain = sh('age', ['-d', '-i', identity, pack]);
  return plain.subarray(8 + plain.readUInt32LE(4));
}

/** Deterministic pseudo-random bytes (SHA-256 in counter mode). */
export function bytes(seed: string, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let o = 0, i = 0; o < n; o += 32, i++) createHash('sha256').update(`${seed}/${i}`).digest().copy(out, o);
  return out;
}

/** Writes `data` over a file at `position`, in place. */
export function overwriteAt(path: string, position: number, data: Buffer): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, data, 0, data.length, position);
  } finally {
    closeSync(fd);
  }
}
