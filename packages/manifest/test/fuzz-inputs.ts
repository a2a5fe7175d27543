/**
 * Fuzz inputs: arbitrary bytes and text, and mutations of valid encodings
 * (byte, token, integer-field and line edits). Re-exported by fuzz-util.ts.
 */
import * as fc from 'fast-check';

const enc = (s: string): Buffer => Buffer.from(s, 'latin1');
const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Byte strings that break parsers: controls, line ends, bad UTF-8, JSON and path syntax, big numbers, deep nesting. */
export const TOKENS: readonly Buffer[] = [
  enc('\0'),
  enc('\r'),
  enc('\r\n'),
  enc('\n'),
  enc('\n\n'),
  enc('\t'),
  enc(' '),
  enc('  '),
  enc('\x7f'),
  enc('\x1b[2J'),
  Buffer.from([0xc2, 0x85]),
  utf8('\u2028'),
  utf8('\u202e'),
  utf8('\u00a0'),
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xed, 0xbf, 0xbf]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xff]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0xf0, 0x9f, 0x98]),
  Buffer.from([0xe2, 0x82]),
  utf8('\ufffd'),
  enc('%'),
  enc('%0'),
  enc('%25'),
  enc('%0A'),
  enc('%0d'),
  enc('%ZZ'),
  enc('%%'),
  enc('/'),
  enc('//'),
  enc('../'),
  enc('./'),
  enc('..'),
  enc('\\'),
  enc('C:'),
  enc('data/'),
  enc('data'),
  utf8('e\u0301'),
  utf8('\u00e9'),
  utf8('\u0130'),
  utf8('\u212a'),
  utf8('\u200b'),
  utf8('\ud83d\ude00'),
  enc('"'),
  enc('\\"'),
  enc('\\u'),
  enc('\\ud800'),
  enc('\\udc00\\ud800'),
  enc('\\u0000'),
  enc('\\x41'),
  enc('{'),
  enc('}'),
  enc('['),
  enc(']'),
  enc(','),
  enc(':'),
  enc('null'),
  enc('true'),
  enc('""'),
  enc('{}'),
  enc('[]'),
  enc('"__proto__":1,'),
  enc('"t":"file",'),
  enc('"constructor":{},'),
  enc('['.repeat(64)),
  enc('['.repeat(5000)),
  enc('{"a":'.repeat(200)),
  enc(']'.repeat(64)),
  enc('0'),
  enc('-0'),
  enc('-1'),
  enc('01'),
  enc('1.5'),
  enc('1e3'),
  enc('1E400'),
  enc('-'),
  enc('0x10'),
  enc('9007199254740991'),
  enc('9007199254740992'),
  enc('-9007199254740993'),
  enc('18446744073709551616'),
  enc('4294967295'),
  enc('4294967296'),
  enc('4194304'),
  enc('4194305'),
  enc('99999999999999999999999999'),
  enc('NaN'),
  enc('Infinity'),
  enc('='),
  enc('=='),
  enc('+/'),
  enc('-----'),
  enc('--- '),
  enc('-> '),
  enc('x'.repeat(300)),
  enc('y'.repeat(5000)),
  enc('a/'.repeat(200)),
  enc(' '.repeat(100)),
  enc('%25'.repeat(100)),
];

/** Numbers as text, for replacing the digits of a line. */
export const NUMBERS: readonly string[] = [
  '0',
  '-0',
  '-1',
  '1',
  '01',
  '00',
  '2',
  '255',
  '256',
  '65536',
  '1.0',
  '1e3',
  '1E400',
  '0.5',
  '-9007199254740991',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '18446744073709551615',
  '4294967295',
  '4294967296',
  '4194304',
  '4194305',
  '4198400',
  '4198401',
  '1048576',
  '99999999999999999999999',
  '1' + '0'.repeat(400),
];

/** Values written as little-endian integers over a length field. */
const INTS: readonly bigint[] = [
  0n,
  1n,
  2n,
  7n,
  8n,
  0x7fn,
  0x80n,
  0xffn,
  0x100n,
  0x7fffn,
  0xffffn,
  0x10000n,
  0xffffffn,
  0x7fffffffn,
  0x80000000n,
  0xffffffffn,
  0x100000000n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 63n,
  2n ** 64n - 1n,
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
        case 0:
          lines.splice(z, 0, lines[a]!);
          break; // duplicate
        case 1:
          lines.splice(a, 1);
          break; // drop
        case 2:
          [lines[a], lines[z]] = [lines[z]!, lines[a]!];
          break; // swap
        case 3:
          lines[a] = Buffer.concat([lines[a]!.subarray(0, Math.max(0, lines[a]!.length - 1)), enc('\r\n')]);
          break; // CRLF
        case 4:
          lines.splice(a, 0, enc('\n'));
          break; // blank line
        default:
          lines[a] = Buffer.concat([enc(' '), lines[a]!]);
          break; // indent
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
  return fc.tuple(fc.nat({ max: seeds.length - 1 }), fc.array(opArb, { maxLength: maxOps })).map(([i, ops]) => mutate(seeds[i]!, ops, seeds));
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
  return fc.tuple(mutatedBytes(bytes, maxOps), fc.array(fc.tuple(nat, loneSurrogate), { maxLength: 2 })).map(([b, surrogates]) => {
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
