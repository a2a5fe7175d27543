/**
 * Fuzzing harness shared by the fuzz tests of both packages (the engine's
 * loads the compiled module at run time, see packages/engine/test/fuzz.test.ts).
 *
 * A target is a parser of drive data. The property every target must keep,
 * whatever its input: it returns a value or throws a BrickpostError, never
 * another exception; it never takes longer than a per-case time budget; and
 * no single allocation it makes (Buffer.alloc*, typed arrays, ArrayBuffer)
 * is larger than a bound on the input's size, so a lying length field
 * cannot make it commit memory.
 *
 * Environment:
 * - BRICKPOST_FUZZ_SEED: base seed (default a fixed one, so runs reproduce);
 * - BRICKPOST_FUZZ_RUNS: runs per target (default each target's own, small);
 * - BRICKPOST_FUZZ_SECONDS: time limit per target (runs unbounded unless
 *   BRICKPOST_FUZZ_RUNS is also set);
 * - BRICKPOST_FUZZ_ONLY: run only the targets whose name contains this;
 * - BRICKPOST_FUZZ_PATH: replay one counterexample (the path a failure prints, with its seed and target);
 * - BRICKPOST_FUZZ_BUDGET_MS: per-case time budget (default 200);
 * - BRICKPOST_FUZZ_STALL_MS: a case running this long is a hang: its input is
 *   written to a file and the process is killed (default 30000).
 */
import { writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import * as fc from 'fast-check';
import { isBrickpostError } from '../src/errors.js';

/** fast-check itself, so targets build their arbitraries with the same instance. */
export { fc };

const env = process.env;
const DEFAULT_SEED = 0x5eed_b71c;

/** The run settings read from the environment. */
export const fuzzConfig = {
  seed: env.BRICKPOST_FUZZ_SEED !== undefined ? Number(env.BRICKPOST_FUZZ_SEED) | 0 : DEFAULT_SEED,
  runs: env.BRICKPOST_FUZZ_RUNS !== undefined ? Number(env.BRICKPOST_FUZZ_RUNS) : undefined,
  seconds: env.BRICKPOST_FUZZ_SECONDS !== undefined ? Number(env.BRICKPOST_FUZZ_SECONDS) : undefined,
  path: env.BRICKPOST_FUZZ_PATH,
  only: env.BRICKPOST_FUZZ_ONLY,
  budgetMs: Number(env.BRICKPOST_FUZZ_BUDGET_MS ?? 200),
  stallMs: Number(env.BRICKPOST_FUZZ_STALL_MS ?? 30_000),
};

// ---------------------------------------------------------------------------
// Allocation probe

let probing = false;
let largest = 0;

function note(n: unknown): void {
  if (probing && typeof n === 'number' && n > largest) largest = n;
}

let installed = false;
function installBufferProbe(): void {
  if (installed) return;
  installed = true;
  for (const name of ['alloc', 'allocUnsafe', 'allocUnsafeSlow'] as const) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to its own `this` below
    const orig = Buffer[name] as (...a: unknown[]) => Buffer;
    (Buffer as unknown as Record<string, unknown>)[name] = function (this: unknown, ...a: unknown[]) {
      note(a[0]);
      return orig.apply(this, a);
    };
  }
}

type Ctor = new (...a: never[]) => object;
const TYPED = ['Uint8Array', 'Uint16Array', 'Uint32Array', 'Int32Array', 'Float64Array', 'BigUint64Array', 'ArrayBuffer'] as const;
const originals = new Map<string, Ctor>();
const probes = new Map<string, Ctor>();
for (const name of TYPED) {
  const Orig = (globalThis as unknown as Record<string, Ctor>)[name]!;
  const bytes = name === 'ArrayBuffer' ? 1 : (Orig as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  originals.set(name, Orig);
  // The constructor behind a proxy that notes the bytes of `new X(length)`;
  // what it makes is an ordinary instance of the original.
  const Probe: Ctor = new Proxy(Orig, {
    construct(target, args: unknown[], newTarget): object {
      if (typeof args[0] === 'number') note(args[0] * bytes);
      return Reflect.construct(target, args, newTarget === Probe ? target : newTarget) as object;
    },
  });
  probes.set(name, Probe);
}

function swapGlobals(on: boolean): void {
  const g = globalThis as unknown as Record<string, Ctor>;
  for (const name of TYPED) g[name] = (on ? probes : originals).get(name)!;
}

/** Runs `fn` and returns the largest single allocation it asked for, in bytes. */
async function probeAllocations<T>(fn: () => T | Promise<T>): Promise<{ value?: T; threw: boolean; error?: unknown; largest: number }> {
  installBufferProbe();
  largest = 0;
  probing = true;
  swapGlobals(true);
  try {
    const r = fn();
    // Async targets run with the probe on until they settle.
    const value = r instanceof Promise ? await r : r;
    return { value, threw: false, largest };
  } catch (error) {
    return { threw: true, error, largest };
  } finally {
    probing = false;
    swapGlobals(false);
  }
}

// ---------------------------------------------------------------------------
// Hang watchdog: a worker thread that sees a case start and not end.

const beat = new Int32Array(new SharedArrayBuffer(8));
const caseBytes = new Uint8Array(new SharedArrayBuffer(1 << 20));
const caseName = new Uint8Array(new SharedArrayBuffer(256));
let watchdog: Worker | null = null;

const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const { writeFileSync, writeSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const [beat, bytes, name, stallMs] = workerData;
let last = -1, since = Date.now();
setInterval(() => {
  const now = Atomics.load(beat, 0);
  if (now !== last) { last = now; since = Date.now(); return; }
  if (now % 2 === 1 && Date.now() - since > stallMs) {
    const target = Buffer.from(name).toString('utf8').replace(/\\0+$/, '');
    const file = join(tmpdir(), 'brickpost-fuzz-hang-' + process.pid + '.bin');
    writeFileSync(file, Buffer.from(bytes.subarray(0, Atomics.load(beat, 1))));
    writeSync(2, 'brickpost fuzz: target ' + JSON.stringify(target) + ' hangs (case running for ' + stallMs + ' ms); input written to ' + file + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}, 250);
`;

function startWatchdog(): void {
  if (watchdog) return;
  watchdog = new Worker(WATCHDOG, { eval: true, workerData: [beat, caseBytes, caseName, fuzzConfig.stallMs] });
  watchdog.unref();
}

function caseStarts(name: string, shown: Buffer): void {
  caseName.fill(0);
  caseName.set(Buffer.from(name).subarray(0, 255));
  const n = Math.min(shown.length, caseBytes.length);
  caseBytes.set(shown.subarray(0, n));
  Atomics.store(beat, 1, n);
  Atomics.add(beat, 0, 1);
}

function caseEnds(): void {
  Atomics.add(beat, 0, 1);
}

// ---------------------------------------------------------------------------
// The property

/** How one target is run. */
export interface TargetOptions<T> {
  /** Runs in `npm test` when BRICKPOST_FUZZ_RUNS is unset. */
  runs?: number;
  /** Per-case time budget in ms (default BRICKPOST_FUZZ_BUDGET_MS, 200). */
  budgetMs?: number;
  /** Largest single allocation allowed for an input of `size` bytes (default 1 MiB + 4 × size). */
  maxAlloc?: (size: number, input: T) => number;
  /** The input as bytes, for its size and for the hang dump (default: Buffers as is, the rest as JSON). */
  show?: (input: T) => Buffer;
}

function defaultShow(x: unknown): Buffer {
  if (Buffer.isBuffer(x)) return x;
  if (x instanceof Uint8Array) return Buffer.from(x);
  if (typeof x === 'string') return Buffer.from(JSON.stringify(x));
  // The holder's raw value: JSON.stringify hands the replacer a Buffer's toJSON() form.
  const replacer = function (this: Record<string, unknown>, k: string, v: unknown): unknown {
    const raw = this[k];
    return raw instanceof Uint8Array ? `hex:${Buffer.from(raw.subarray(0, 1 << 16)).toString('hex')}` : v;
  };
  return Buffer.from(JSON.stringify(x, replacer) ?? 'undefined');
}

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}\n${e.stack ?? ''}`;
  return String(e);
}

/**
 * Runs `parse` on inputs from `arb` and fails on anything but a value or a
 * BrickpostError, on a case over the time budget (measured twice, the
 * faster run counts, so a GC pause is not a finding) and on an allocation
 * over the bound. When `parse` returns, `check` tests invariants of the
 * value; anything `check` throws is a failure, a BrickpostError included.
 */
export async function fuzz<T, R>(
  name: string,
  arb: fc.Arbitrary<T>,
  parse: (input: T) => R | Promise<R>,
  check?: (input: T, value: R) => void | Promise<void>,
  opts: TargetOptions<T> = {},
): Promise<void> {
  if (fuzzConfig.only !== undefined && !name.includes(fuzzConfig.only)) return;
  startWatchdog();
  const budget = opts.budgetMs ?? fuzzConfig.budgetMs;
  const show = opts.show ?? defaultShow;
  const maxAlloc = opts.maxAlloc ?? ((size: number) => (1 << 20) + 4 * size);
  const runOnce = async (input: T): Promise<{ ms: number; value?: R; threw: boolean; error?: unknown; largest: number }> => {
    const t0 = performance.now();
    const r = await probeAllocations(() => parse(input));
    return { ...r, ms: performance.now() - t0 };
  };
  const property = fc.asyncProperty(arb, async (input) => {
    const shown = show(input);
    caseStarts(name, shown);
    try {
      let r = await runOnce(input);
      if (r.ms > budget) {
        const again = await runOnce(input);
        if (again.ms < r.ms) r = again;
      }
      if (r.threw && !isBrickpostError(r.error)) {
        throw new Error(`${name}: threw a non-BrickpostError: ${describe(r.error)}`);
      }
      if (r.ms > budget) throw new Error(`${name}: case took ${r.ms.toFixed(1)} ms, over the ${budget} ms budget (${shown.length}-byte input)`);
      const bound = maxAlloc(shown.length, input);
      if (r.largest > bound) {
        throw new Error(`${name}: allocated ${r.largest} bytes at once for a ${shown.length}-byte input (bound ${bound})`);
      }
      if (!r.threw && check) {
        try {
          await check(input, r.value as R);
        } catch (e) {
          throw new Error(`${name}: invariant broken: ${describe(e)}`, { cause: e });
        }
      }
    } finally {
      caseEnds();
    }
  });
  const params: fc.Parameters<[T]> = { seed: fuzzConfig.seed ^ hash(name) };
  if (fuzzConfig.path !== undefined) params.path = fuzzConfig.path;
  if (fuzzConfig.seconds !== undefined) {
    params.numRuns = fuzzConfig.runs ?? 2 ** 31 - 1;
    params.plugins = [fc.interruptAfterTimeLimit(fuzzConfig.seconds * 1000, { failOnInterrupt: false }) as unknown as fc.Plugin<[T]>];
  } else {
    params.numRuns = fuzzConfig.runs ?? opts.runs ?? 200;
  }
  const details = await fc.check(property, params);
  if (details.failed) {
    const report = `${fc.defaultReportMessage(details) ?? ''}\n${describe(details.errorInstance)}`;
    throw new Error(
      `fuzz target ${JSON.stringify(name)} failed; replay with: npm run fuzz -- --seed ${fuzzConfig.seed} ` +
        `--path ${JSON.stringify(details.counterexamplePath)} --only ${JSON.stringify(name)}\n${report}`,
    );
  }
  if (fuzzConfig.seconds !== undefined || (fuzzConfig.runs ?? 0) > 10_000) {
    writeSync(2, `brickpost fuzz: ${name}: ${details.numRuns} runs, seed ${fuzzConfig.seed}${details.interrupted ? ' (time limit)' : ''}\n`);
  }
}

export * from './fuzz-inputs.js';
