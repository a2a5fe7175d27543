/**
 * Bech32 (BIP 173) as the age spec uses it: no length limit on the data part,
 * all-lowercase or all-uppercase strings, checksum over the lowercase form.
 */

import { BrickpostError, quote } from '../errors.js';

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATOR[i]!;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >>> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

function convertBits(data: ArrayLike<number>, from: number, to: number, pad: boolean): number[] | null {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const maxv = (1 << to) - 1;
  for (let i = 0; i < data.length; i++) {
    acc = (acc << from) | data[i]!;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >>> bits) & maxv);
    }
    acc &= (1 << bits) - 1;
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & maxv);
  } else if (bits >= from || ((acc << (to - bits)) & maxv) !== 0) {
    return null;
  }
  return out;
}

/** Encodes `bytes` under the lowercase human-readable part `hrp`, in lowercase. */
export function encodeBech32(hrp: string, bytes: Uint8Array): string {
  const lower = hrp.toLowerCase();
  const words = convertBits(bytes, 8, 5, true)!;
  const mod = polymod([...hrpExpand(lower), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  let out = lower + '1';
  for (const w of words) out += CHARSET[w];
  for (let i = 0; i < 6; i++) out += CHARSET[(mod >>> (5 * (5 - i))) & 31];
  return out;
}

/**
 * Decodes a Bech32 string into its lowercase human-readable part and bytes.
 * Throws BrickpostError BAD_KEY on mixed case, bad characters, bad padding or
 * a wrong checksum (`what` names the kind of key in the message).
 */
export function decodeBech32(s: string, what: string): { hrp: string; bytes: Buffer } {
  const bad = (why: string): BrickpostError => new BrickpostError('BAD_KEY', `invalid ${what} ${quote(s, 40)}: ${why}`);
  if (s !== s.toLowerCase() && s !== s.toUpperCase()) throw bad('mixed case');
  const lower = s.toLowerCase();
  const sep = lower.lastIndexOf('1');
  if (sep < 1 || sep + 7 > lower.length) throw bad('no separator or too short');
  const hrp = lower.slice(0, sep);
  for (let i = 0; i < hrp.length; i++) {
    const c = hrp.charCodeAt(i);
    if (c < 33 || c > 126) throw bad('bad prefix character');
  }
  const words: number[] = [];
  for (let i = sep + 1; i < lower.length; i++) {
    const w = CHARSET.indexOf(lower[i]!);
    if (w < 0) throw bad('bad character');
    words.push(w);
  }
  if (polymod([...hrpExpand(hrp), ...words]) !== 1) throw bad('bad checksum');
  const bytes = convertBits(words.slice(0, -6), 5, 8, false);
  if (bytes === null) throw bad('bad padding');
  return { hrp, bytes: Buffer.from(bytes) };
}
