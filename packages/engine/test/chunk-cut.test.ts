import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { CHUNK_PARAMS_V1, GEAR, chunkId, chunkKey, findCut } from '../src/chunk/index.js';

const { min: MIN, avg: AVG, max: MAX } = CHUNK_PARAMS_V1;

/** A reproducible pseudo-random byte stream (AES-256-CTR of zeros). */
function stream(n: number, seed: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
}

function cuts(data: Uint8Array, cut = findCut): number[] {
  const out: number[] = [];
  for (let s = 0; s < data.length;) {
    const n = cut(data, s, data.length, true);
    out.push(n);
    s += n;
  }
  return out;
}

/** The chunker exactly as the spec text states it, one byte per step, no shortcuts. */
function specCut(data: Uint8Array, start: number, end: number, eof: boolean): number {
  const n = end - start;
  let fp = 0;
  for (let i = MIN; i < Math.min(n, MAX); i++) {
    fp = (fp * 2 + (GEAR[data[start + i]!]! >>> 0)) % 2 ** 32;
    const mask = i < AVG ? CHUNK_PARAMS_V1.maskS : CHUNK_PARAMS_V1.maskL;
    if ((fp & mask) === 0) return i;
  }
  if (n >= MAX) return MAX;
  return eof ? n : -1;
}

test('gear table: SHA-256("brickpost-gear-v1" ‖ i), first 4 bytes big-endian', () => {
  assert.equal(GEAR.length, 256);
  assert.equal(GEAR[0]! >>> 0, 0x6c70d183);
  assert.equal(GEAR[1]! >>> 0, 0xc0f45a42);
  assert.equal(GEAR[255]! >>> 0, 0x18fede43);
  for (let i = 0; i < 256; i++) {
    const d = createHash('sha256')
      .update('brickpost-gear-v1')
      .update(Buffer.from([i]))
      .digest();
    assert.equal(GEAR[i]! >>> 0, d.readUInt32BE(0), `GEAR[${i}]`);
  }
});

test('masks: 22 and 18 top bits (NC level 2 around log2(avg) = 20)', () => {
  const bits = (m: number): number => m.toString(2).replace(/0/g, '').length;
  assert.equal(bits(CHUNK_PARAMS_V1.maskS), 22);
  assert.equal(bits(CHUNK_PARAMS_V1.maskL), 18);
  assert.equal(CHUNK_PARAMS_V1.maskS >>> 0, 0xfffffc00);
  assert.equal(CHUNK_PARAMS_V1.maskL >>> 0, 0xffffc000);
});

test('cut points of a fixed stream are pinned (spec vector)', () => {
  const data = stream(16 << 20, 1);
  const expected = [1405123, 1397426, 1386368, 1081124, 1322229, 1191020, 619827, 1209971, 1152458, 1574998, 1040091, 583073, 1150547, 1103127, 559834];
  assert.deepEqual(cuts(data), expected);
  assert.deepEqual(cuts(data, specCut), expected);
});

test('findCut equals the spec text on random data, also when data runs out', () => {
  const data = randomBytes(12 << 20);
  assert.deepEqual(cuts(data), cuts(data, specCut));
  for (let k = 0; k < 40; k++) {
    const start = Math.floor(Math.random() * (4 << 20));
    const end = start + Math.floor(Math.random() * (5 << 20));
    for (const eof of [true, false]) {
      assert.equal(findCut(data, start, end, eof), specCut(data, start, end, eof), `[${start}, ${end}) eof=${eof}`);
    }
  }
});

test('sizes: within [min, max], the last may be shorter; mean near 1 MiB', () => {
  const data = randomBytes(64 << 20);
  const sizes = cuts(data);
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    data.length,
  );
  for (const s of sizes.slice(0, -1)) assert.ok(s >= MIN && s <= MAX, `chunk of ${s} bytes`);
  const mean = data.length / sizes.length;
  assert.ok(mean > 0.8 * AVG && mean < 1.5 * AVG, `mean ${mean}`);
});

test('determinism and edge rules: zeros, short input, empty input', () => {
  const data = randomBytes(8 << 20);
  assert.deepEqual(cuts(data), cuts(Buffer.from(data)));
  // Zeros never match a mask: every chunk is cut at max.
  assert.deepEqual(cuts(Buffer.alloc(10 << 20)), [MAX, MAX, 2 << 20]);
  assert.equal(findCut(data, 0, 1000, true), 1000);
  assert.equal(findCut(data, 0, 1000, false), -1);
  assert.equal(findCut(data, 0, MIN, false), -1);
  assert.equal(findCut(data, 5, 5, true), 0);
  assert.throws(() => findCut(data, 10, 5, true), { code: 'USAGE' });
  assert.throws(() => findCut(data, 0, data.length + 1, true), { code: 'USAGE' });
});

test('streaming: any split of the input gives the same cuts', () => {
  const data = randomBytes(20 << 20);
  const whole = cuts(data);
  // Feed growing prefixes the way a reader does: ask, and on -1 make more data visible.
  const got: number[] = [];
  let start = 0;
  let end = 0;
  while (start < data.length) {
    const eof = end === data.length;
    const n = findCut(data, start, end, eof);
    if (n === -1) {
      end = Math.min(data.length, end + 1 + Math.floor(Math.random() * (3 << 20)));
      continue;
    }
    got.push(n);
    start += n;
  }
  assert.deepEqual(got, whole);
});

test('a 100-byte insert near the start changes only nearby chunks', () => {
  const key = chunkKey(randomBytes(32));
  const data = randomBytes(20 << 20);
  const edited = Buffer.concat([data.subarray(0, 5000), randomBytes(100), data.subarray(5000)]);
  const ids = (d: Buffer): Set<string> => {
    const out = new Set<string>();
    let s = 0;
    for (const n of cuts(d)) {
      out.add(chunkId(key, d.subarray(s, s + n)).toString('hex'));
      s += n;
    }
    return out;
  };
  const before = ids(data);
  const after = ids(edited);
  const kept = [...before].filter((id) => after.has(id)).length;
  assert.ok(before.size >= 12, `${before.size} chunks`);
  assert.ok(kept >= before.size - 2, `only ${kept} of ${before.size} chunk ids survived`);
});
