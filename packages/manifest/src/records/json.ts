import { BrickpostError, quote } from '../errors.js';

/**
 * Strict JSON for drive data (FORMAT.md §strict-json): RFC 8259 with the
 * ambiguities a hostile writer could exploit removed. Duplicate object keys,
 * numbers that are not integers within ±(2^53−1), lone surrogates (escaped or
 * not), nesting deeper than `maxDepth` and trailing data are all refused.
 * JSON.parse accepts every one of these, which is why this parser exists.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface StrictJsonOptions {
  maxDepth?: number;
  /** Used in error messages, e.g. "manifest line 12". */
  where?: string;
}

const WS = new Uint8Array(128);
WS[0x20] = WS[0x09] = WS[0x0a] = WS[0x0d] = 1;

/**
 * Parses one JSON text strictly.
 * @throws BrickpostError MALFORMED naming the offset and the problem.
 */
export function parseStrictJson(text: string, options: StrictJsonOptions = {}): Json {
  const p = new Parser(text, options.maxDepth ?? 16, options.where ?? 'json');
  p.ws();
  const v = p.value(0);
  p.ws();
  if (p.i !== text.length) p.fail(`unexpected data after the value: ${quote(text.slice(p.i, p.i + 40))}`);
  return v;
}

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly maxDepth: number,
    readonly where: string,
  ) {}

  fail(what: string): never {
    throw new BrickpostError('MALFORMED', `${this.where}: ${what} at offset ${this.i}`);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c < 128 && WS[c]) this.i++;
      else break;
    }
  }

  value(depth: number): Json {
    const c = this.s.charCodeAt(this.i);
    if (c === 0x22) return this.string();
    if (c === 0x7b) return this.object(depth);
    if (c === 0x5b) return this.array(depth);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (this.s.startsWith('true', this.i)) return ((this.i += 4), true);
    if (this.s.startsWith('false', this.i)) return ((this.i += 5), false);
    if (this.s.startsWith('null', this.i)) return ((this.i += 4), null);
    return this.fail(this.i >= this.s.length ? 'unexpected end' : 'unexpected character');
  }

  object(depth: number): { [key: string]: Json } {
    if (depth >= this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`);
    this.i++;
    // A plain object (as JSON.parse makes), whose fixed shape V8 reads fast; every key is an own property.
    const out: { [key: string]: Json } = {};
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x7d) return (this.i++, out);
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) !== 0x22) this.fail('expected a key');
      const k = this.string();
      if (Object.prototype.hasOwnProperty.call(out, k)) this.fail(`duplicate key ${JSON.stringify(k)}`);
      this.ws();
      if (this.s.charCodeAt(this.i) !== 0x3a) this.fail('expected ":"');
      this.i++;
      this.ws();
      const v = this.value(depth + 1);
      // Assigned, `__proto__` would set the prototype: it is defined as an own property, as JSON.parse does.
      if (k === '__proto__') Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
      else out[k] = v;
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 0x7d) return out;
      if (c !== 0x2c) (this.i--, this.fail('expected "," or "}"'));
    }
  }

  array(depth: number): Json[] {
    if (depth >= this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`);
    this.i++;
    const out: Json[] = [];
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x5d) return (this.i++, out);
    for (;;) {
      this.ws();
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 0x5d) return out;
      if (c !== 0x2c) (this.i--, this.fail('expected "," or "]"'));
    }
  }

  /**
   * An integer: `-? (0 | [1-9][0-9]*)`, scanned in place (a regular
   * expression here made an object and a match for each of the millions of
   * numbers a large manifest holds). A fraction or an exponent after it is
   * refused; anything else after it is the caller's to judge.
   */
  number(): number {
    const s = this.s;
    const start = this.i;
    let i = start;
    const negative = s.charCodeAt(i) === 0x2d;
    if (negative) i++;
    const first = s.charCodeAt(i);
    if (first === 0x30) i++;
    else if (first >= 0x31 && first <= 0x39) {
      i++;
      for (let c = s.charCodeAt(i); c >= 0x30 && c <= 0x39; c = s.charCodeAt(++i));
    } else return this.fail('malformed number');
    const digits = i - start - (negative ? 1 : 0);
    const next = s.charCodeAt(i);
    const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
    if (next === 0x2e && isDigit(s.charCodeAt(i + 1))) this.fail('only integers are allowed');
    if (next === 0x65 || next === 0x45) {
      const sign = s.charCodeAt(i + 1);
      if (isDigit(sign) || ((sign === 0x2b || sign === 0x2d) && isDigit(s.charCodeAt(i + 2)))) this.fail('only integers are allowed');
    }
    if (negative && first === 0x30) this.fail('negative zero -0');
    let n: number;
    if (digits <= 15) {
      // Exact in a double: 15 digits stay below 2^53.
      n = 0;
      for (let k = i - digits; k < i; k++) n = n * 10 + (s.charCodeAt(k) - 0x30);
      if (negative) n = -n;
    } else {
      n = Number(s.slice(start, i));
      if (!Number.isSafeInteger(n)) this.fail(`integer ${s.slice(start, i)} is outside ±(2^53 − 1)`);
    }
    this.i = i;
    return n;
  }

  string(): string {
    const s = this.s;
    let i = ++this.i;
    // Fast path: no escapes and no characters that need checking.
    let plain = true;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c || c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) {
        plain = false;
        break;
      }
    }
    if (plain) {
      if (i >= s.length) this.fail('unterminated string');
      const out = s.slice(this.i, i);
      this.i = i + 1;
      return out;
    }
    return this.slowString();
  }

  slowString(): string {
    const s = this.s;
    const units: number[] = [];
    for (;;) {
      if (this.i >= s.length) this.fail('unterminated string');
      let c = s.charCodeAt(this.i++);
      if (c === 0x22) break;
      if (c < 0x20) (this.i--, this.fail('control character in string'));
      if (c === 0x5c) {
        const e = s.charCodeAt(this.i++);
        const simple: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9 };
        if (e === 0x75) {
          const hex = s.slice(this.i, this.i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
          c = parseInt(hex, 16);
          this.i += 4;
        } else if (simple[e] !== undefined) c = simple[e]!;
        else (this.i--, this.fail('bad escape'));
      }
      units.push(c);
    }
    // The string is quoted as JSON escapes it, so the lone surrogate shows as \uXXXX.
    const lone = (u: number): never => this.fail(`lone surrogate \\u${u.toString(16)} in string ${quote(String.fromCharCode(...units.slice(0, 201)))}`);
    for (let k = 0; k < units.length; k++) {
      const u = units[k]!;
      if (u >= 0xd800 && u <= 0xdbff) {
        const n = units[k + 1];
        if (n === undefined || n < 0xdc00 || n > 0xdfff) lone(u);
        k++;
      } else if (u >= 0xdc00 && u <= 0xdfff) lone(u);
    }
    let out = '';
    for (let k = 0; k < units.length; k += 4096) out += String.fromCharCode(...units.slice(k, k + 4096));
    return out;
  }
}

/**
 * Whether `v` is a value JSON.parse(JSON.stringify(v)) gives back as it is,
 * nested at most `depth` deep: null, booleans, strings, finite numbers but
 * -0, arrays without holes, and objects whose prototype is Object's, of
 * such values. Anything else (undefined, a function, a bigint, NaN, a
 * class instance, a toJSON method) stringify would change or refuse.
 */
export function roundTrips(v: unknown, depth: number): v is Json {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0);
    case 'object': {
      if (v === null) return true;
      if (depth <= 0) return false;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!(i in v) || !roundTrips(v[i], depth - 1)) return false;
        return Object.getPrototypeOf(v) === Array.prototype;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return false;
      for (const k in v) if (!roundTrips((v as Record<string, unknown>)[k], depth - 1)) return false;
      return true;
    }
    default:
      return false;
  }
}
