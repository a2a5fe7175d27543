/**
 * A few lines of WebAssembly assembly, enough for the SIMD kernels of
 * delta/weak-simd.ts, parity/simd.ts and parity/accumulators.ts: LEB128
 * numbers, vectors, sections, the instructions they use, and a module of
 * one exported function and one exported memory `mem`, compiled and
 * instantiated synchronously.
 */

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const o: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    o.push(b);
  } while (n);
  return o;
}

/** Signed LEB128. */
export function sleb(n: number): number[] {
  const o: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...o, b];
    o.push(b | 0x80);
  }
}

export const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
export const simd = (op: number): number[] => [0xfd, ...uleb(op)];
export const get = (i: number): number[] => [0x20, i];
export const set = (i: number): number[] => [0x21, i];
export const tee = (i: number): number[] => [0x22, i];
export const i32 = (n: number): number[] => [0x41, ...sleb(n)];
/** A v128 constant of 16 bytes. */
export const v128 = (bytes: number[]): number[] => [...simd(0x0c), ...bytes];
/** v128.load / v128.store at a constant offset from the address on the stack (alignment hint 16). */
export const load128 = (offset: number): number[] => [...simd(0x00), 4, ...uleb(offset)];
export const store128 = (offset: number): number[] => [...simd(0x0b), 4, ...uleb(offset)];
/** i32.load at a constant offset from the address on the stack (alignment hint 4). */
export const loadI32 = (offset: number): number[] => [0x28, 2, ...uleb(offset)];

const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];

/**
 * The bytes of a module exporting memory `mem` of `pages` pages and one
 * function `fn` taking `params` i32 parameters and returning nothing, with
 * locals declared as [count, type] runs (0x7f i32, 0x7b v128) and `body`
 * its instructions (ending with the function's `end`).
 */
export function moduleBytes(o: { fn: string; params: number; locals: Array<[number, number]>; pages: number; body: number[] }): Uint8Array {
  const code = [...vec(o.locals.map(([n, t]) => [...uleb(n), t])), ...o.body];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, vec([[0x60, ...vec(Array.from({ length: o.params }, () => [0x7f])), 0]])),
    ...section(3, vec([[0]])),
    ...section(5, vec([[0x00, ...uleb(o.pages)]])),
    ...section(
      7,
      vec([
        [...name('mem'), 0x02, 0],
        [...name(o.fn), 0x00, 0],
      ]),
    ),
    ...section(10, vec([[...uleb(code.length), ...code]])),
  ]);
}

/** A compiled module (WebAssembly.Module), to instantiate more than once. */
export interface CompiledModule {
  readonly __compiled: unique symbol;
}

/** The part of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => CompiledModule;
  Instance: new (module: CompiledModule) => { exports: object };
};

/** Compiles a module synchronously (small modules only); throws where WebAssembly or its SIMD is missing. */
export function compile(bytes: Uint8Array): CompiledModule {
  return new WebAssembly.Module(bytes);
}

/**
 * Instantiates a module synchronously, compiling it first when given its
 * bytes; returns its exports. Each instance has a memory of its own.
 * @throws where WebAssembly or its SIMD is missing
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the exports it expects
export function instantiate<T>(module: Uint8Array | CompiledModule): T {
  return new WebAssembly.Instance(module instanceof Uint8Array ? compile(module) : module).exports as T;
}
