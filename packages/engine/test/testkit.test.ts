/**
 * The testkit loop: every vector in packages/engine/testkit/ is built into a
 * drive with the crafting writer and run through the real `brickpost`
 * command. The exit code, the error code (or a clean result), the quoted
 * offending value, and for ingest that nothing was written outside DEST and
 * nothing but DEST/.brickpost after a refusal are checked.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, lstatSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { buildVector, loadVectors, newParty, type ExpectedEntry, type Parties, type Vector } from '../src/testing.js';

const PKG = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(PKG, '..', '..');
const CLI = join(ROOT, 'apps', 'cli', 'bin', 'brickpost.js');

/** Vectors whose correct behaviour the engine does not have yet: name → what goes wrong. */
const KNOWN_BUGS: Record<string, string> = {};

const root = mkdtempSync(join(tmpdir(), 'bp-testkit-'));
if (!process.env.BRICKPOST_KEEP_TMP) afterAll(() => rmSync(root, { recursive: true, force: true }));
const selfHome = join(root, 'homes', 'self');
const parties: Parties = { self: newParty(selfHome), stranger: newParty(join(root, 'homes', 'stranger')) };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function brickpost(home: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.BRICKPOST_HOME;
    const p = spawn(process.execPath, [CLI, '--home', home, '--json', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function show(r: Run): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
}

function events(r: Run): Array<Record<string, any>> {
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, any>;
      } catch {
        throw new Error(`stdout line is not JSON: ${l}\n${show(r)}`);
      }
    });
}

/** Every path under `dir` with its kind and size, skipping the folders in `skip`. */
function snapshot(dir: string, skip: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (skip.includes(p)) continue;
      const st = lstatSync(p);
      out.push(`${relative(dir, p)} ${st.isDirectory() ? 'dir' : st.isFile() ? st.size : 'other'}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/** DEST's tree (without .brickpost) compared with what the recipe describes. */
function assertTree(dest: string, expected: ExpectedEntry[]): void {
  const got: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const rel = relative(dest, p);
      if (rel === '.brickpost') continue;
      const st = lstatSync(p);
      if (st.isDirectory()) (got.push(`${rel}/`), walk(p));
      else got.push(`${rel} ${st.isFile() ? readFileSync(p).toString('hex') : st.isSymbolicLink() ? `-> ${readlinkSync(p)}` : 'not a file'}`);
    }
  };
  walk(dest);
  const want = expected
    .map((e) => (e.type === 'dir' ? `${e.path}/` : e.type === 'link' ? `${e.path} -> ${e.target}` : `${e.path} ${e.data!.toString('hex')}`))
    .sort();
  assert.deepEqual(got.sort(), want, 'DEST does not hold exactly the shipped tree');
}

function args(v: Vector, drive: string, dest: string): string[] {
  switch (v.command) {
    case 'verify':
      return ['verify', drive];
    case 'verify-deep':
      return ['verify', '--deep', drive];
    case 'ingest':
      return ['ingest', drive, dest];
    case 'ls':
      return ['ls', drive];
  }
}

async function runVector(v: Vector): Promise<void> {
  const work = mkdtempSync(join(root, `${v.name}-`));
  const drive = join(work, 'drive');
  const scratch = join(work, 'scratch');
  const dest = join(work, 'dest');
  mkdirSync(drive);
  mkdirSync(scratch);
  // A private copy of the receiver's home, so vectors can run side by side.
  const home = join(work, 'home');
  cpSync(selfHome, home, { recursive: true });
  const built = await buildVector(v.body, parties, drive, scratch);
  const before = snapshot(work, [dest, home]);
  const r = await brickpost(home, [...args(v, drive, dest), ...v.args]);
  assert.equal(r.code, v.exit, `exit code\n${show(r)}`);
  const ev = events(r);
  const last = ev[ev.length - 1];
  assert.ok(last, `no output\n${show(r)}`);
  const summary = ev.find((e) => e.type === 'summary');

  if (v.expect === 'ok') {
    assert.notEqual(last.type, 'error', show(r));
    if (v.command === 'verify' || v.command === 'verify-deep') assert.equal(summary?.result.ok, true, show(r));
    if (v.command === 'ingest') {
      assertTree(dest, built.expected);
      for (const m of built.modes) {
        const mode = lstatSync(join(dest, m.path)).mode & 0o7777;
        assert.equal(mode.toString(8), m.mode.toString(8), `mode of ${m.path}`);
      }
    }
    if (v.command === 'ls')
      assert.deepEqual(
        ev.map((e) => e.path),
        built.expected.map((e) => e.path),
        show(r),
      );
  } else {
    assert.equal(last.type, 'error', `last event is not an error\n${show(r)}`);
    assert.equal(last.exitCode, v.exit, show(r));
    let message: string = last.message;
    if (v.command === 'verify' || v.command === 'verify-deep') {
      const problems: Array<{ code: string; message: string }> = summary?.result.problems ?? [];
      const p = problems.find((x) => x.code === v.expect);
      assert.ok(p, `no ${v.expect} among the problems ${JSON.stringify(problems.map((x) => x.code))}\n${show(r)}`);
      message = p.message;
    } else {
      assert.equal(last.code, v.expect, `error code\n${show(r)}`);
    }
    if (v.quote !== undefined) assert.ok(message.includes(v.quote), `message ${JSON.stringify(message)} does not quote ${v.quote}`);
    if (v.command === 'ingest') {
      // A refusal before DEST is prepared leaves no DEST at all.
      const left = existsSync(dest) ? readdirSync(dest).filter((n) => n !== '.brickpost') : [];
      assert.deepEqual(left, [], 'a refused ingest left entries in DEST');
    }
  }
  assert.deepEqual(snapshot(work, [dest, home]), before, 'something outside DEST changed');
}

const vectors = loadVectors(join(PKG, 'testkit'));

test('the testkit has vectors, each named area_case', () => {
  assert.ok(vectors.length >= 25, `${vectors.length} vectors`);
  for (const v of vectors) assert.match(v.name, /^[a-z0-9]+_[a-z0-9_]+$/);
});

function hasTool(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

const TOOLS = ['bagit.py', 'minisign', 'age', 'zstd'];
const missing = TOOLS.filter((t) => !hasTool(t));

test.skipIf(missing.length)(
  `a crafted shipment is what the standard tools expect${missing.length ? ` [skipped: ${missing.join(', ')} not installed]` : ''}`,
  async () => {
    const work = mkdtempSync(join(root, 'tools-'));
    const drive = join(work, 'drive');
    mkdirSync(drive);
    const v = vectors.find((x) => x.name === 'ok_basic')!;
    const { shipment } = await buildVector(v.body, parties, drive, work);
    const run = (cmd: string, argv: string[]): Buffer => {
      const r = spawnSync(cmd, argv, { cwd: shipment.dir, maxBuffer: 64 << 20 });
      assert.equal(r.status, 0, `${cmd} ${argv.join(' ')}: ${String(r.stderr)}`);
      return r.stdout;
    };
    run('bagit.py', ['--validate', '.']);
    run('minisign', ['-V', '-P', parties.self.minisignPublicKey, '-m', 'tagmanifest-sha256.txt']);
    const identity = join(selfHome, 'age-identity.txt');
    run('age', ['-d', '-i', identity, '-o', join(work, 'manifest.zst'), 'data/manifest.age']);
    const lines = run('zstd', ['-d', '-c', join(work, 'manifest.zst')])
      .toString('utf8')
      .trim()
      .split('\n');
    assert.equal(JSON.parse(lines[0]!).shipment, shipment.id);
    assert.equal(JSON.parse(lines[lines.length - 1]!).t, 'end');
    run('age', ['-d', '-i', identity, '-o', join(work, 'pack.zst'), 'data/packs/000/000001.age']);
    const plain = run('zstd', ['-d', '-c', join(work, 'pack.zst')]);
    assert.ok(plain.subarray(plain.length - 8).equals(Buffer.from('the end\n')), 'pack 1 decodes to its chunks');
  },
);

describe('testkit vectors', { concurrent: true }, () => {
  for (const v of vectors) {
    const reason = KNOWN_BUGS[v.name];
    test(`${v.name}: ${v.comment}${reason ? ` [todo: ${reason}]` : ''}`, { todo: Boolean(reason) }, () => runVector(v));
  }
});
