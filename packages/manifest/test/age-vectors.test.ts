// Runs every C2SP CCTV age vector: one test per vector, asserting the outcome
// category and the hash of all plaintext released before any failure.
//
// The vectors come from the npm package cctv-age (C2SP/CCTV's age/testdata,
// published by its author; licence 0BSD, CC0-1.0 or Unlicense), pinned to one
// version in package.json and by its sha512 integrity in package-lock.json.
// VECTORS_DIGEST below pins the content once more: a changed, added or
// removed vector fails the first test instead of silently changing the suite.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'vitest';
import { inflateSync } from 'node:zlib';
import * as cctv from 'cctv-age';
import { BrickpostError, type ErrorCode } from '../src/errors.js';
import {
  decodeArmor,
  parseHeader,
  parseIdentity,
  passphraseIdentity,
  payloadOffset,
  PayloadDecryptor,
  unwrapFileKey,
  type Identity,
} from '../src/age/index.js';

/** 143 vectors of cctv-age 0.2.0 (CCTV commit e9274a7): SHA-256 over "name LF sha256(vector) LF", by name. */
const VECTORS_COUNT = 143;
const VECTORS_DIGEST = 'e91cd2398d1dd1e1a9b05f919608de7dfa9df5ba72044e32ee1b883591c23985';

const vectors = new Map(Object.entries(cctv as unknown as Record<string, Uint8Array>).filter(([, v]) => v instanceof Uint8Array));

interface Vector {
  expect: string;
  payload: string | null;
  identities: Identity[];
  armored: boolean;
  file: Buffer;
}

function parseVector(raw: Buffer): Vector {
  const v: Vector = { expect: '', payload: null, identities: [], armored: false, file: raw };
  let compressed = false;
  let pos = 0;
  for (;;) {
    const end = raw.indexOf(10, pos);
    assert.ok(end >= 0, 'vector has no blank line before its payload');
    const line = raw.toString('utf8', pos, end);
    pos = end + 1;
    if (line === '') break;
    const sep = line.indexOf(': ');
    const key = line.slice(0, sep);
    const value = line.slice(sep + 2);
    if (key === 'expect') v.expect = value;
    else if (key === 'payload') v.payload = value;
    else if (key === 'identity') v.identities.push(parseIdentity(value));
    else if (key === 'passphrase') v.identities.push(passphraseIdentity(value));
    else if (key === 'armored') v.armored = value === 'yes';
    else if (key === 'compressed') {
      assert.equal(value, 'zlib');
      compressed = true;
    } else assert.ok(key === 'file key' || key === 'comment', `unknown vector key ${key}`);
  }
  v.file = compressed ? inflateSync(raw.subarray(pos)) : raw.subarray(pos);
  return v;
}

/** Error codes allowed for each failure category. */
const CODES: Record<string, ErrorCode[]> = {
  'armor failure': ['MALFORMED'],
  'header failure': ['MALFORMED', 'TRUNCATED', 'UNSUPPORTED_VERSION', 'LIMIT_EXCEEDED'],
  'no match': ['NO_MATCHING_KEY'],
  'HMAC failure': ['HEADER_MAC_MISMATCH'],
  'payload failure': ['PAYLOAD_CORRUPT', 'TRUNCATED', 'MALFORMED'],
};

interface Outcome {
  expect: string;
  released: string;
  error: unknown;
}

/** Decrypts like an application would, feeding the payload in `piece`-byte pieces. */
function run(v: Vector, piece: number): Outcome {
  const hash = createHash('sha256');
  const done = (expect: string, error: unknown = null): Outcome => ({ expect, released: hash.digest('hex'), error });
  let file = v.file;
  if (v.armored) {
    try {
      file = decodeArmor(file);
    } catch (e) {
      return done('armor failure', e);
    }
  }
  let dec: PayloadDecryptor;
  let start: number;
  try {
    const parsed = parseHeader(file);
    const fileKey = unwrapFileKey(parsed, file, v.identities);
    start = payloadOffset(parsed.headerLength);
    if (file.length < start) throw new BrickpostError('TRUNCATED', 'age payload nonce is cut short');
    dec = new PayloadDecryptor(fileKey, file.subarray(parsed.headerLength, start));
  } catch (e) {
    const code = e instanceof BrickpostError ? e.code : null;
    return done(code === 'NO_MATCHING_KEY' ? 'no match' : code === 'HEADER_MAC_MISMATCH' ? 'HMAC failure' : 'header failure', e);
  }
  try {
    for (let p = start; p < file.length; p += piece) {
      for (const b of dec.update(file.subarray(p, Math.min(p + piece, file.length)))) hash.update(b);
    }
    for (const b of dec.final()) hash.update(b);
  } catch (e) {
    return done('payload failure', e);
  }
  return done('success');
}

test('age vectors are the pinned set', () => {
  const h = createHash('sha256');
  for (const name of [...vectors.keys()].sort()) h.update(`${name}\n${createHash('sha256').update(vectors.get(name)!).digest('hex')}\n`);
  assert.equal(vectors.size, VECTORS_COUNT);
  assert.equal(h.digest('hex'), VECTORS_DIGEST);
});

for (const name of [...vectors.keys()].sort()) {
  test(`age vector ${name}`, () => {
    const v = parseVector(Buffer.from(vectors.get(name)!));
    const whole = run(v, Number.MAX_SAFE_INTEGER);
    assert.equal(whole.expect, v.expect, `outcome (error: ${String(whole.error)})`);
    if (whole.error !== null) {
      assert.ok(whole.error instanceof BrickpostError, `not a BrickpostError: ${String(whole.error)}`);
      assert.ok(CODES[v.expect]!.includes(whole.error.code), `code ${whole.error.code} for ${v.expect}`);
      assert.match(whole.error.message, /^age |^no identity matches/);
    }
    if (v.payload !== null) assert.equal(whole.released, v.payload, 'hash of released plaintext');
    else assert.notEqual(v.expect, 'success');
    const pieces = run(v, 4093);
    assert.equal(pieces.expect, whole.expect, 'outcome when fed in pieces');
    assert.equal(pieces.released, whole.released, 'released plaintext when fed in pieces');
  });
}
