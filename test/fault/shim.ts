/**
 * The fault shim (shim.c) for tests: compiled once per source version into
 * the temp folder with the system's C compiler, then loaded with LD_PRELOAD
 * into a `brickpost` run so one system call fails with a chosen errno.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brickpost, ROOT, type Run } from '../support.js';

const SOURCE = join(ROOT, 'test', 'fault', 'shim.c');

/** The kinds of call the shim can fail (see shim.c). */
export type FaultOp = 'open' | 'read' | 'write' | 'fsync' | 'rename' | 'mkdir' | 'unlink' | 'link' | 'symlink' | 'truncate' | 'copy';

export interface Fault {
  op: FaultOp;
  /** EIO, ENOSPC, EROFS, EACCES, EBUSY, ENOTDIR, EDQUOT, EPERM… */
  errno: string;
  /** The nth matching call fails (from 1). */
  nth?: number;
  /** Every matching call from the nth on fails. */
  sticky?: boolean;
  /** Only calls whose path contains this count (ends with it, when it ends with `$`). */
  path?: string;
}

let built: string | undefined;
let runs = 0;

/** The shim's shared object, compiled on first use. @throws Error when no C compiler is installed (CI installs gcc). */
export function shimLibrary(): string {
  if (built) return built;
  const src = readFileSync(SOURCE);
  const digest = createHash('sha256').update(src).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'brickpost-fault-shim');
  const lib = join(dir, `shim-${digest}.so`);
  if (!existsSync(lib)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${lib}.${process.pid}.tmp`;
    const r = spawnSync('cc', ['-O2', '-Wall', '-shared', '-fPIC', '-o', tmp, SOURCE, '-ldl', '-lpthread'], { encoding: 'utf8' });
    if (r.status !== 0) {
      rmSync(tmp, { force: true });
      throw new Error(`cannot compile the fault shim (cc ${r.error ? `not runnable: ${r.error.message}` : `exit ${r.status}`}): ${r.stderr}`);
    }
    renameSync(tmp, lib);
  }
  built = lib;
  return lib;
}

/** The environment (`extra` added) that loads the shim with `fault` (none: only logging when `log` is given). */
export function faultEnv(fault: Fault | null, log?: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, LD_PRELOAD: shimLibrary(), UV_USE_IO_URING: '0' };
  delete env.BP_FAULT;
  delete env.BP_FAULT_LOG;
  if (fault) {
    env.BP_FAULT = `${fault.op}:${fault.errno}:${fault.nth ?? 1}${fault.sticky ? '+' : ''}${fault.path !== undefined ? `:${fault.path}` : ''}`;
    // One count for the run and the processes it starts (`sync -f` inherits the shim).
    env.BP_FAULT_COUNT = join(tmpdir(), `bp-fault-count-${process.pid}-${++runs}`);
  }
  if (log) env.BP_FAULT_LOG = log;
  return env;
}

/** Runs `brickpost --home HOME args…` with `fault` injected (and `env` added to the environment). */
export function brickpostWithFault(home: string, args: string[], fault: Fault | null, log?: string, env: NodeJS.ProcessEnv = {}): Run {
  const e = faultEnv(fault, log, env);
  try {
    return brickpost(home, args, { env: e });
  } finally {
    if (e.BP_FAULT_COUNT) rmSync(e.BP_FAULT_COUNT, { force: true });
  }
}

/** The calls a log recorded, as [op, path] pairs (FIRED lines marked). */
export function readFaultLog(log: string): Array<{ op: FaultOp; path: string; fired: boolean }> {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const fired = l.startsWith('FIRED ');
      const rest = fired ? l.slice(6) : l;
      const sp = rest.indexOf(' ');
      return { op: rest.slice(0, sp) as FaultOp, path: rest.slice(sp + 1), fired };
    });
}
