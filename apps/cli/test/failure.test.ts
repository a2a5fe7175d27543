import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrickpostError, toEnvironmentError } from '@brickpost/engine/api';
import { toFailure } from '../src/failure.js';

async function systemError(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

test('a BrickpostError keeps its code, exit code, hint and path', () => {
  const f = toFailure(new BrickpostError('LOCKED', 'catalog is locked', { hint: 'wait', path: '/h/catalog.db' }));
  assert.deepEqual(f, { type: 'error', code: 'LOCKED', exitCode: 7, message: 'catalog is locked', hint: 'wait', path: '/h/catalog.db' });
});

test('ENOENT on an argument is a usage error; elsewhere an environment error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'brickpost-cli-'));
  try {
    const missing = join(dir, 'nope');
    const e = await systemError(() => readFile(missing));
    const onArg = toFailure(e, { argumentPaths: [missing], command: 'verify' });
    assert.equal(onArg.code, 'NOT_FOUND');
    assert.equal(onArg.exitCode, 2);
    assert.equal(onArg.hint, "see 'brickpost verify --help'");
    const elsewhere = toFailure(e, { argumentPaths: [dir] });
    assert.equal(elsewhere.code, 'IO');
    assert.equal(elsewhere.exitCode, 5);
    assert.match(elsewhere.message, /no such file or directory/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('no space and permission errors are environment errors (5)', () => {
  const sys = (code: string): Error => Object.assign(new Error(`${code}: whatever, write`), { code, syscall: 'write', path: '/d/x' });
  assert.equal(toFailure(sys('ENOSPC')).code, 'NO_SPACE');
  assert.equal(toFailure(sys('ENOSPC')).exitCode, 5);
  assert.equal(toFailure(sys('EACCES')).code, 'PERMISSION');
  assert.equal(toFailure(sys('EPERM')).exitCode, 5);
  assert.equal(toFailure(sys('EIO')).code, 'IO');
});

test('anything else is an internal error (70) with a hint to report it', () => {
  const f = toFailure(new TypeError('x is not a function'));
  assert.equal(f.exitCode, 70);
  assert.equal(f.message, 'internal error: x is not a function');
  assert.match(f.hint ?? '', /bug in brickpost/);
});

test('an interrupted job is reported as cancelled (130)', () => {
  const f = toFailure(new BrickpostError('IO', 'read failed'), { interrupted: true });
  assert.equal(f.code, 'CANCELLED');
  assert.equal(f.exitCode, 130);
  const abort = new Error('The operation was aborted');
  abort.name = 'AbortError';
  assert.equal(toFailure(abort).exitCode, 130);
});

test("an error SQLite raised is classified by the engine's table, never as a bug, unless it is an SQL error", () => {
  const sqlite = (code: string, message: string): Error => Object.assign(new Error(message), { name: 'SqliteError', code });
  const cases: Array<[string, string, number]> = [
    ['SQLITE_BUSY', 'LOCKED', 7],
    ['SQLITE_LOCKED', 'LOCKED', 7],
    ['SQLITE_IOERR_FSYNC', 'IO', 5],
    ['SQLITE_FULL', 'NO_SPACE', 5],
    ['SQLITE_READONLY', 'PERMISSION', 5],
    ['SQLITE_CANTOPEN', 'IO', 5],
    ['SQLITE_CORRUPT', 'DATABASE_DAMAGED', 5],
    ['SQLITE_NOTADB', 'DATABASE_DAMAGED', 5],
  ];
  for (const [code, want, exit] of cases) {
    const f = toFailure(sqlite(code, 'Database Is Locked'));
    assert.equal(f.code, want, code);
    assert.equal(f.exitCode, exit, code);
    assert.match(f.message, new RegExp(`database is locked \\(${code}\\)`));
    assert.ok(f.hint === undefined || !/bug/.test(f.hint), code);
  }
  assert.match(toFailure(sqlite('SQLITE_CORRUPT', 'database disk image is malformed')).hint ?? '', /'brickpost catalog recover --help'/);
  const bug = toFailure(sqlite('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: trust.name'));
  assert.equal(bug.code, 'INTERNAL');
  assert.equal(bug.exitCode, 70);
});

test('an environment error wrapped around a bug is reported as the bug (70); around an errno it stays the environment (5)', () => {
  const misuse = new TypeError('This database connection is busy executing a query');
  const wrapped = toEnvironmentError(misuse, 'cannot create "out/a"');
  assert.equal(wrapped.code, 'IO', 'the engine wraps anything as IO');
  const f = toFailure(wrapped);
  assert.equal(f.code, 'INTERNAL');
  assert.equal(f.exitCode, 70);
  assert.match(f.message, /busy executing a query/);
  const sql = Object.assign(new Error('no such table: x'), { name: 'SqliteError', code: 'SQLITE_ERROR' });
  assert.equal(toFailure(new BrickpostError('IO', 'x', { cause: sql })).exitCode, 70);
  const eio = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', syscall: 'write', errno: -5 });
  const io = toFailure(toEnvironmentError(eio, 'cannot write "out/a"'));
  assert.equal(io.code, 'IO');
  assert.equal(io.exitCode, 5);
  const busy = Object.assign(new Error('database is locked'), { name: 'SqliteError', code: 'SQLITE_BUSY' });
  assert.equal(toFailure(new BrickpostError('LOCKED', 'the catalog is locked', { cause: busy })).exitCode, 7);
});
