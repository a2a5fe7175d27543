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
  const bytes = name === 'ArrayBuffer' ? 1 : ((Orig as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT);
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
          throw new Error(`${name}: invariant broken: ${describe(e)}`);
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

// ---------------------------------------------------------------------------
// Inputs: arbitrary bytes and text, and mutations of valid encodings.

const enc = (s: string): Buffer => Buffer.from(s, 'latin1');
const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Byte strings that break parsers: controls, line ends, bad UTF-8, JSON and path syntax, big numbers, deep nesting. */
export const TOKENS: readonly Buffer[] = [
  enc('\0'), enc('\r'), enc('\r\n'), enc('\n'), enc('\n\n'), enc('\t'), enc(' '), enc('  '), enc('\x7f'), enc('\x1b[2J'),
  Buffer.from([0xc2, 0x85]), utf8('\u2028'), utf8('\u202e'), utf8('\u00a0'), Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xed, 0xbf, 0xbf]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xff]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from([0xe2, 0x82]), utf8('\ufffd'),
  enc('%'), enc('%0'), enc('%25'), enc('%0A'), enc('%0d'), enc('%ZZ'), enc('%%'),
  enc('/'), enc('//'), enc('../'), enc('./'), enc('..'), enc('\\'), enc('C:'), enc('data/'), enc('data'),
  utf8('e\u0301'), utf8('\u00e9'), utf8('\u0130'), utf8('\u212a'), utf8('\u200b'), utf8('\ud83d\ude00'),
  enc('"'), enc('\\"'), enc('\\u'), enc('\\ud800'), enc('\\udc00\\ud800'), enc('\\u0000'), enc('\\x41'),
  enc('{'), enc('}'), enc('['), enc(']'), enc(','), enc(':'), enc('null'), enc('true'), enc('""'), enc('{}'), enc('[]'),
  enc('"__proto__":1,'), enc('"t":"file",'), enc('"constructor":{},'),
  enc('['.repeat(64)), enc('['.repeat(5000)), enc('{"a":'.repeat(200)), enc(']'.repeat(64)),
  enc('0'), enc('-0'), enc('-1'), enc('01'), enc('1.5'), enc('1e3'), enc('1E400'), enc('-'), enc('0x10'),
  enc('9007199254740991'), enc('9007199254740992'), enc('-9007199254740993'), enc('18446744073709551616'),
  enc('4294967295'), enc('4294967296'), enc('4194304'), enc('4194305'), enc('99999999999999999999999999'),
  enc('NaN'), enc('Infinity'), enc('='), enc('=='), enc('+/'), enc('-----'), enc('--- '), enc('-> '),
  enc('x'.repeat(300)), enc('y'.repeat(5000)), enc('a/'.repeat(200)), enc(' '.repeat(100)), enc('%25'.repeat(100)),
];

/** Numbers as text, for replacing the digits of a line. */
export const NUMBERS: readonly string[] = [
  '0', '-0', '-1', '1', '01', '00', '2', '255', '256', '65536', '1.0', '1e3', '1E400', '0.5', '-9007199254740991',
  '9007199254740991', '9007199254740992', '9007199254740993', '18446744073709551615', '4294967295', '4294967296',
  '4194304', '4194305', '4198400', '4198401', '1048576', '99999999999999999999999', '1' + '0'.repeat(400),
];

/** Values written as little-endian integers over a length field. */
const INTS: readonly bigint[] = [
  0n, 1n, 2n, 7n, 8n, 0x7fn, 0x80n, 0xffn, 0x100n, 0x7fffn, 0xffffn, 0x10000n, 0xffffffn, 0x7fffffffn, 0x80000000n, 0xffffffffn,
  0x100000000n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n,
];

/** One edit of an input; positions are taken modulo its length. */
export type Op =
  | { k: 'flip'; at: number; bit: number }
  | { k: 'byte'; at: number; v: number }
  | { k: 'ins'; at: number; b: Uint8Array }
  | { k: 'del'; at: number; n: number }
  | { k: 'cut'; at: number }
  | { k: 'dup'; at: number; n: number; to: number }
  | { k: 'token'; at: number; t: number; over: boolean }
  | { k: 'int'; at: number; width: number; v: number }
  | { k: 'nudge'; at: number; width: number; d: number }
  | { k: 'line'; how: number; a: number; b: number }
  | { k: 'num'; nth: number; t: number }
  | { k: 'key'; nth: number }
  | { k: 'splice'; at: number; other: number; from: number; n: number };

const nat = fc.nat();
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('flip' as const), at: nat, bit: fc.nat({ max: 7 }) }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant('byte' as const), at: nat, v: fc.nat({ max: 255 }) }), weight: 3 },
  { arbitrary: fc.record({ k: fc.constant('ins' as const), at: nat, b: fc.uint8Array({ minLength: 1, maxLength: 8 }) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('del' as const), at: nat, n: fc.integer({ min: 1, max: 64 }) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('cut' as const), at: nat }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('dup' as const), at: nat, n: fc.integer({ min: 1, max: 512 }), to: nat }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('token' as const), at: nat, t: nat, over: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant('int' as const), at: nat, width: fc.constantFrom(1, 2, 3, 4, 8), v: nat }), weight: 3 },
  { arbitrary: fc.record({ k: fc.constant('nudge' as const), at: nat, width: fc.constantFrom(1, 2, 4), d: fc.integer({ min: -16, max: 16 }) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('line' as const), how: fc.nat({ max: 5 }), a: nat, b: nat }), weight: 3 },
  { arbitrary: fc.record({ k: fc.constant('num' as const), nth: nat, t: nat }), weight: 3 },
  { arbitrary: fc.record({ k: fc.constant('key' as const), nth: nat }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('splice' as const), at: nat, other: nat, from: nat, n: fc.integer({ min: 1, max: 256 }) }), weight: 1 },
);

function splitLines(b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let nl = b.indexOf(10); nl >= 0; nl = b.indexOf(10, at)) {
    out.push(b.subarray(at, nl + 1));
    at = nl + 1;
  }
  if (at < b.length) out.push(b.subarray(at));
  return out;
}

function writeInt(b: Buffer, at: number, width: number, v: bigint): void {
  for (let i = 0; i < width && at + i < b.length; i++) b[at + i] = Number((v >> BigInt(8 * i)) & 0xffn);
}

function readInt(b: Buffer, at: number, width: number): bigint {
  let v = 0n;
  for (let i = 0; i < width && at + i < b.length; i++) v |= BigInt(b[at + i]!) << BigInt(8 * i);
  return v;
}

/** Largest mutated input: mutations stay small enough to keep many runs cheap. */
const MAX_MUTANT = 4 << 20;

function applyOp(b: Buffer, op: Op, seeds: readonly Buffer[]): Buffer {
  const pos = (x: number): number => x % (b.length + 1);
  const inside = (x: number): number => (b.length === 0 ? 0 : x % b.length);
  switch (op.k) {
    case 'flip': {
      if (b.length === 0) return b;
      const c = Buffer.from(b);
      c[inside(op.at)]! ^= 1 << op.bit;
      return c;
    }
    case 'byte': {
      if (b.length === 0) return b;
      const c = Buffer.from(b);
      c[inside(op.at)] = op.v;
      return c;
    }
    case 'ins': {
      const p = pos(op.at);
      return Buffer.concat([b.subarray(0, p), op.b, b.subarray(p)]);
    }
    case 'del': {
      const p = pos(op.at);
      return Buffer.concat([b.subarray(0, p), b.subarray(p + op.n)]);
    }
    case 'cut':
      return b.subarray(0, pos(op.at));
    case 'dup': {
      const p = pos(op.at);
      const piece = b.subarray(p, p + op.n);
      const to = pos(op.to);
      return Buffer.concat([b.subarray(0, to), piece, b.subarray(to)]);
    }
    case 'token': {
      const t = TOKENS[op.t % TOKENS.length]!;
      const p = pos(op.at);
      return Buffer.concat([b.subarray(0, p), t, b.subarray(op.over ? p + t.length : p)]);
    }
    case 'int': {
      const c = Buffer.from(b);
      writeInt(c, inside(op.at), op.width, INTS[op.v % INTS.length]! & ((1n << BigInt(8 * op.width)) - 1n));
      return c;
    }
    case 'nudge': {
      const c = Buffer.from(b);
      const at = inside(op.at);
      const mask = (1n << BigInt(8 * op.width)) - 1n;
      writeInt(c, at, op.width, (readInt(c, at, op.width) + BigInt(op.d)) & mask);
      return c;
    }
    case 'line': {
      const lines = splitLines(b);
      if (lines.length === 0) return b;
      const a = op.a % lines.length;
      const z = op.b % lines.length;
      switch (op.how) {
        case 0: lines.splice(z, 0, lines[a]!); break; // duplicate
        case 1: lines.splice(a, 1); break; // drop
        case 2: [lines[a], lines[z]] = [lines[z]!, lines[a]!]; break; // swap
        case 3: lines[a] = Buffer.concat([lines[a]!.subarray(0, Math.max(0, lines[a]!.length - 1)), enc('\r\n')]); break; // CRLF
        case 4: lines.splice(a, 0, enc('\n')); break; // blank line
        default: lines[a] = Buffer.concat([enc(' '), lines[a]!]); break; // indent
      }
      return Buffer.concat(lines);
    }
    case 'num': {
      const text = b.toString('latin1');
      const runs = [...text.matchAll(/-?[0-9]+/g)];
      if (runs.length === 0) return b;
      const m = runs[op.nth % runs.length]!;
      return Buffer.concat([b.subarray(0, m.index), enc(NUMBERS[op.t % NUMBERS.length]!), b.subarray(m.index + m[0].length)]);
    }
    case 'key': {
      const text = b.toString('latin1');
      const keys = [...text.matchAll(/"([^"\\]{0,40})":/g)];
      if (keys.length === 0) return b;
      const m = keys[op.nth % keys.length]!;
      return Buffer.concat([b.subarray(0, m.index), enc(`"${m[1]}":null,`), b.subarray(m.index)]);
    }
    case 'splice': {
      const o = seeds[op.other % seeds.length]!;
      const from = o.length === 0 ? 0 : op.from % o.length;
      const p = pos(op.at);
      return Buffer.concat([b.subarray(0, p), o.subarray(from, from + op.n), b.subarray(p)]);
    }
  }
}

/** Applies mutations in order; exposed so targets can mutate structured seeds themselves. */
export function mutate(seed: Buffer, ops: readonly Op[], seeds: readonly Buffer[] = [seed]): Buffer {
  let b = seed;
  for (const op of ops) {
    b = applyOp(b, op, seeds);
    if (b.length > MAX_MUTANT) b = b.subarray(0, MAX_MUTANT);
  }
  return b;
}

/** Mutations of the valid encodings `seeds`: 0 to `maxOps` byte, token, integer-field and line edits (0 keeps a seed as is). */
export function mutatedBytes(seeds: readonly Buffer[], maxOps = 6): fc.Arbitrary<Buffer> {
  if (seeds.length === 0) throw new Error('mutatedBytes needs at least one seed');
  return fc
    .tuple(fc.nat({ max: seeds.length - 1 }), fc.array(opArb, { maxLength: maxOps }))
    .map(([i, ops]) => mutate(seeds[i]!, ops, seeds));
}

/**
 * Like mutatedBytes, but keeps which seed was mutated, for seeds that come
 * with what a reader expects or what they decode to.
 */
export function mutatedSeed<S>(seeds: readonly S[], bytesOf: (s: S) => Buffer, maxOps = 6): fc.Arbitrary<{ seed: S; bytes: Buffer }> {
  if (seeds.length === 0) throw new Error('mutatedSeed needs at least one seed');
  const all = seeds.map(bytesOf);
  return fc
    .tuple(fc.nat({ max: seeds.length - 1 }), fc.array(opArb, { maxLength: maxOps }))
    .map(([i, ops]) => ({ seed: seeds[i]!, bytes: mutate(all[i]!, ops, all) }));
}

/** Arbitrary bytes, biased towards the tokens parsers care about. */
export function arbitraryBytes(maxLength = 4096): fc.Arbitrary<Buffer> {
  const piece = fc.oneof(
    { arbitrary: fc.uint8Array({ maxLength: 32 }).map((u) => Buffer.from(u)), weight: 3 },
    { arbitrary: fc.constantFrom(...TOKENS), weight: 2 },
    { arbitrary: fc.string({ maxLength: 16 }).map((s) => utf8(s)), weight: 2 },
  );
  return fc.oneof(
    fc.uint8Array({ maxLength }).map((u) => Buffer.from(u)),
    fc.array(piece, { maxLength: 64 }).map((p) => Buffer.concat(p).subarray(0, maxLength)),
  );
}

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** Arbitrary JavaScript strings: any code point, lone surrogates, control characters. */
export function arbitraryText(maxLength = 512): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 6 },
    { arbitrary: fc.constantFrom('\n', '\r', '\t', ' ', ':', '/', '%', '"', '\\', '{', '}', '[', ']', ',', '0', '9', '-'), weight: 6 },
    { arbitrary: loneSurrogate, weight: 1 },
  );
  return fc.string({ unit, maxLength });
}

/** Mutations of `seeds` as text (UTF-8 decoded, so bad bytes become U+FFFD) with lone surrogates sometimes inserted. */
export function mutatedText(seeds: readonly (Buffer | string)[], maxOps = 6): fc.Arbitrary<string> {
  const bytes = seeds.map((s) => (typeof s === 'string' ? utf8(s) : s));
  return fc
    .tuple(mutatedBytes(bytes, maxOps), fc.array(fc.tuple(nat, loneSurrogate), { maxLength: 2 }))
    .map(([b, surrogates]) => {
      let s = b.toString('utf8');
      for (const [at, c] of surrogates) {
        const p = at % (s.length + 1);
        s = s.slice(0, p) + c + s.slice(p);
      }
      return s;
    });
}

/** Either arbitrary bytes or mutations of `seeds`, mostly mutations. */
export function bytesInput(seeds: readonly Buffer[], maxLength = 4096): fc.Arbitrary<Buffer> {
  return fc.oneof({ arbitrary: mutatedBytes(seeds), weight: 4 }, { arbitrary: arbitraryBytes(maxLength), weight: 1 });
}

/** Either arbitrary text or text mutations of `seeds`, mostly mutations. */
export function textInput(seeds: readonly (Buffer | string)[], maxLength = 512): fc.Arbitrary<string> {
  return fc.oneof({ arbitrary: mutatedText(seeds), weight: 4 }, { arbitrary: arbitraryText(maxLength), weight: 1 });
}

/** Splits `b` at random points, for parsers that take their input in pieces. */
export function withSplits(arb: fc.Arbitrary<Buffer>): fc.Arbitrary<{ bytes: Buffer; cuts: number[] }> {
  return fc.tuple(arb, fc.array(nat, { maxLength: 6 })).map(([bytes, raw]) => ({
    bytes,
    cuts: [...new Set(raw.map((c) => c % (bytes.length + 1)))].sort((x, y) => x - y),
  }));
}

/** The pieces of `bytes` between `cuts`. */
export function pieces(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const c of cuts) {
    out.push(bytes.subarray(at, c));
    at = c;
  }
  out.push(bytes.subarray(at));
  return out;
}
