import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { blake2b as noble } from '@noble/hashes/blake2.js';
import {
  generateSigningKey,
  keyIdHex,
  publicKeyString,
  formatPublicKeyFile,
  parsePublicKey,
  formatSecretKeyFile,
  parseSecretKeyFile,
  signBuffer,
  signPrehashed,
  signLegacy,
  createPrehash,
  parseSignature,
  verifySignature,
} from '../src/sign/index.js';
import { isBrickpostError, type ErrorCode } from '../src/errors.js';

function throwsCode(fn: () => unknown, code: ErrorCode, text?: RegExp, label = ''): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(isBrickpostError(e), `${label} expected BrickpostError, got ${String(e)}`);
    assert.equal(e.code, code, `${label} ${e.message}`);
    if (text) assert.match(e.message, text);
    return true;
  });
}

test('the BLAKE2b of secret key checksums matches RFC 7693 and Python hashlib vectors', () => {
  const blake2b = (data: Buffer, n: number): Buffer => Buffer.from(noble(data, { dkLen: n }));
  assert.equal(blake2b(Buffer.alloc(0), 32).toString('hex'), '0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8');
  assert.equal(blake2b(Buffer.from('abc'), 32).toString('hex'), 'bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319');
  const seq = Buffer.from(Array.from({ length: 200 }, (_, i) => i));
  assert.equal(blake2b(seq, 32).toString('hex'), '63c3d97a9f8894d5e043a707b0fee7f7ec4c049a23bbf1079df20b4165f9e22d');
  assert.equal(blake2b(seq.subarray(0, 128), 20).toString('hex'), 'e6992372ab022447b34f6d6032fbab707a11adef');
  for (const n of [0, 1, 74, 127, 128, 129, 255, 256, 300]) {
    const data = seq.length >= n ? seq.subarray(0, n) : Buffer.alloc(n, 7);
    assert.deepEqual(blake2b(data, 64), createHash('blake2b512').update(data).digest(), `length ${n}`);
  }
  assert.throws(() => blake2b(Buffer.alloc(1), 65));
});

test('key id prints byte-reversed, as minisign prints it', () => {
  const id = Buffer.from('64a44a38141b0ec8', 'hex');
  assert.equal(keyIdHex(id), 'C80E1B14384AA464');
  // A real minisign public key file (minisign 0.11, -G -W).
  const pub = 'untrusted comment: minisign public key C80E1B14384AA464\nRWRkpEo4FBsOyIPF6dW14SfHM3Y+z/a3Uqt+yXgLc9RclIulDDW+iCqo\n';
  const info = parsePublicKey(pub);
  assert.equal(info.keyIdHex, 'C80E1B14384AA464');
  assert.deepEqual(info.keyId, id);
  assert.equal(info.line, 'RWRkpEo4FBsOyIPF6dW14SfHM3Y+z/a3Uqt+yXgLc9RclIulDDW+iCqo');
  assert.equal(formatPublicKeyFile(info), pub);
  // minisign 0.11 prints ids with a leading zero nibble in 15 digits.
  const small = { keyId: Buffer.from('ceaae5a456343402', 'hex'), publicKey: info.publicKey };
  assert.equal(keyIdHex(small.keyId), '02343456A4E5AACE');
  const unpadded = `untrusted comment: minisign public key ${keyIdHex(small.keyId).replace(/^0+/, '')}\n${publicKeyString(small)}\n`;
  assert.deepEqual(parsePublicKey(unpadded).keyId, small.keyId);
  assert.throws(
    () => parsePublicKey(unpadded.replace(' key 2', ' key 3')),
    (e) => isBrickpostError(e, 'BAD_KEY'),
  );
});

test('public keys: format and parse round trip, bare or as a file', () => {
  const key = generateSigningKey();
  assert.equal(key.keyId.length, 8);
  assert.equal(key.seed.length, 32);
  assert.equal(key.publicKey.length, 32);
  const line = publicKeyString(key);
  assert.match(line, /^RW[A-Za-z0-9+/]{54}$/);
  for (const text of [line, line + '\n', formatPublicKeyFile(key), formatPublicKeyFile(key).slice(0, -1)]) {
    const info = parsePublicKey(text);
    assert.deepEqual(info.keyId, key.keyId);
    assert.deepEqual(info.publicKey, key.publicKey);
    assert.equal(info.line, line);
  }
  assert.match(formatPublicKeyFile(key), new RegExp(`^untrusted comment: minisign public key ${keyIdHex(key.keyId)}\n`));
});

test('public keys: malformed input is BAD_KEY', () => {
  const key = generateSigningKey();
  const line = publicKeyString(key);
  const other = generateSigningKey();
  const bad = [
    '',
    'RW',
    line + ' ',
    ' ' + line,
    line + '\r\n',
    line + '\n\n',
    line.slice(0, -1),
    line + 'AAAA',
    Buffer.concat([Buffer.from('Ec'), key.keyId, key.publicKey]).toString('base64'),
    Buffer.concat([Buffer.from('Ed'), key.keyId, Buffer.alloc(32)]).toString('base64'),
    Buffer.concat([Buffer.from('Ed'), key.keyId, Buffer.from('01' + '00'.repeat(31), 'hex')]).toString('base64'),
    `comment\n${line}\n`,
    `untrusted comment: minisign public key ${keyIdHex(other.keyId)}\n${line}\n`,
    `untrusted comment: x\u0000\n${line}\n`,
    `untrusted comment: x\n${line}\nextra\n`,
    'x'.repeat(5000),
  ];
  for (const [i, text] of bad.entries()) throwsCode(() => parsePublicKey(text), 'BAD_KEY', undefined, `case ${i}`);
});

test('secret key file round trip; checksum and consistency are enforced', () => {
  const key = generateSigningKey();
  const text = formatSecretKeyFile(key);
  assert.deepEqual(parseSecretKeyFile(text), key);
  const lines = text.split('\n');
  const raw = Buffer.from(lines[1]!, 'base64');
  assert.equal(raw.length, 158);
  assert.equal(raw.subarray(0, 6).toString('latin1'), 'Ed\0\0B2');

  const withZeroChk = Buffer.from(raw);
  withZeroChk.fill(0, 126);
  assert.deepEqual(parseSecretKeyFile(`${lines[0]}\n${withZeroChk.toString('base64')}\n`), key);

  const badChk = Buffer.from(raw);
  badChk[157] = badChk[157]! ^ 1;
  throwsCode(() => parseSecretKeyFile(`${lines[0]}\n${badChk.toString('base64')}\n`), 'BAD_KEY', /checksum/);

  const wrongPub = Buffer.from(withZeroChk);
  wrongPub[100] = wrongPub[100]! ^ 1;
  throwsCode(() => parseSecretKeyFile(`${lines[0]}\n${wrongPub.toString('base64')}\n`), 'BAD_KEY', /does not match/);

  const encrypted = Buffer.from(raw);
  encrypted.write('Sc', 2, 'latin1');
  assert.throws(
    () => parseSecretKeyFile(`${lines[0]}\n${encrypted.toString('base64')}\n`),
    (e: unknown) => {
      assert.ok(isBrickpostError(e, 'BAD_KEY'));
      assert.match(e.message, /encrypted/);
      assert.match(e.hint ?? '', /minisign -C -W/);
      return true;
    },
  );
  throwsCode(() => parseSecretKeyFile(lines[1]!), 'BAD_KEY');
  throwsCode(() => parseSecretKeyFile(`${lines[0]}\n${lines[1]}\n\n`), 'BAD_KEY');
});

test('sign and verify round trip, prehashed, streaming and legacy', () => {
  const key = generateSigningKey();
  const trusted = [{ keyId: key.keyId, publicKey: key.publicKey }];
  const message = Buffer.from('hello brickpost\n');
  const sig = signBuffer(message, key, 'timestamp:1\tfile:hello');
  assert.deepEqual(verifySignature(sig, message, trusted), { keyIdHex: keyIdHex(key.keyId), trustedComment: 'timestamp:1\tfile:hello' });

  const h = createPrehash();
  h.update(message.subarray(0, 5));
  h.update(message.subarray(5));
  const prehash = h.digest();
  assert.equal(signPrehashed(prehash, key, 'timestamp:1\tfile:hello'), sig, 'Ed25519 is deterministic');
  assert.equal(verifySignature(sig, { prehash }, trusted).keyIdHex, keyIdHex(key.keyId));

  const parsed = parseSignature(sig);
  assert.equal(parsed.algorithm, 'ED');
  assert.deepEqual(parsed.keyId, key.keyId);
  assert.equal(parsed.untrustedComment, `signature from brickpost key ${keyIdHex(key.keyId)}`);

  const legacy = signLegacy(message, key, 'legacy', 'custom');
  assert.equal(parseSignature(legacy).algorithm, 'Ed');
  assert.equal(parseSignature(legacy).untrustedComment, 'custom');
  assert.equal(verifySignature(legacy, message, trusted).trustedComment, 'legacy');
  throwsCode(() => verifySignature(legacy, { prehash }, trusted), 'SIGNATURE_INVALID', /legacy/);
  throwsCode(() => signBuffer(message, key, 'a\nb'), 'USAGE');
  throwsCode(() => signBuffer(message, key, 'x'.repeat(8174)), 'USAGE');
  assert.doesNotThrow(() => signBuffer(message, key, 'x'.repeat(8173)));
});

test('verify: tampering and unknown keys give the right codes', () => {
  const key = generateSigningKey();
  const trusted = [{ keyId: key.keyId, publicKey: key.publicKey }];
  const message = Buffer.from('payload');
  const sig = signBuffer(message, key, 'trusted');

  throwsCode(() => verifySignature(sig, Buffer.from('payloaD'), trusted), 'SIGNATURE_INVALID', /altered/);
  throwsCode(() => verifySignature(sig.replace('trusted comment: trusted', 'trusted comment: trustee'), message, trusted), 'SIGNATURE_INVALID', /comment/);
  // The untrusted comment is not covered by any signature.
  assert.doesNotThrow(() => verifySignature(sig.replace(/^untrusted comment: .*$/m, 'untrusted comment: anything'), message, trusted));

  const other = generateSigningKey();
  throwsCode(() => verifySignature(sig, message, [{ keyId: other.keyId, publicKey: other.publicKey }]), 'UNTRUSTED_PUBLISHER', new RegExp(keyIdHex(key.keyId)));
  throwsCode(() => verifySignature(sig, message, []), 'UNTRUSTED_PUBLISHER');
  // Same key id, different key: the signer chose the id, it proves nothing.
  throwsCode(() => verifySignature(sig, message, [{ keyId: key.keyId, publicKey: other.publicKey }]), 'SIGNATURE_INVALID');
  // With both keys under that id, the right one still verifies.
  assert.doesNotThrow(() => verifySignature(sig, message, [{ keyId: key.keyId, publicKey: other.publicKey }, ...trusted]));
});

test('verify: small-order keys and signatures never verify', () => {
  // OpenSSL alone accepts this all-zero key with an all-zero signature for any message.
  const keyId = Buffer.from('0102030405060708', 'hex');
  const zero64 = Buffer.alloc(64).toString('base64');
  const sigLine = Buffer.concat([Buffer.from('Ed'), keyId, Buffer.alloc(64)]).toString('base64');
  const text = `untrusted comment: x\n${sigLine}\ntrusted comment: \n${zero64}\n`;
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.alloc(32)]);
  const zeroKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  assert.equal(cryptoVerify(null, Buffer.from('x'), zeroKey, Buffer.alloc(64)), true, 'premise: OpenSSL accepts it');
  throwsCode(() => verifySignature(text, Buffer.from('x'), [{ keyId, publicKey: Buffer.alloc(32) }]), 'SIGNATURE_INVALID');
});

test('parseSignature is strict', () => {
  const key = generateSigningKey();
  const sig = signBuffer(Buffer.from('m'), key, 'tc');
  const lines = sig.split('\n');
  assert.equal(lines.length, 5);
  const sigBytes = Buffer.from(lines[1]!, 'base64');
  const withAlg = (alg: string): string => {
    const b = Buffer.from(sigBytes);
    b.write(alg, 0, 'latin1');
    return [lines[0], b.toString('base64'), lines[2], lines[3], ''].join('\n');
  };
  const bad: Array<string | Buffer> = [
    '',
    sig.slice(0, -1),
    sig + '\n',
    sig.replace(/\n/g, '\r\n'),
    sig.replace('untrusted comment: ', 'untrusted comment:'),
    sig.replace('trusted comment: tc', 'trusted comment:tc'),
    sig.replace('trusted comment: tc', 'trusted comment: t\u0007c'),
    [lines[0], lines[1]!.slice(0, -1) + 'A', lines[2], lines[3], ''].join('\n'),
    [lines[0], lines[1] + '=', lines[2], lines[3], ''].join('\n'),
    [lines[0], lines[1], lines[2], lines[3]!.replace(/=+$/, ''), ''].join('\n'),
    [lines[0], ' ' + lines[1], lines[2], lines[3], ''].join('\n'),
    withAlg('Ex'),
    `untrusted comment: ${'x'.repeat(1004)}\n${lines.slice(1).join('\n')}`,
    `untrusted comment: x\n${lines[1]}\ntrusted comment: ${'y'.repeat(20000)}\n${lines[3]}\n`,
    Buffer.concat([Buffer.from('untrusted comment: \xff', 'latin1'), Buffer.from('\n' + lines.slice(1).join('\n'))]),
  ];
  for (const [i, text] of bad.entries()) throwsCode(() => parseSignature(text), 'MALFORMED', undefined, `case ${i}`);
  assert.equal(parseSignature(withAlg('Ed')).algorithm, 'Ed');
  assert.equal(parseSignature(Buffer.from(sig)).trustedComment, 'tc');
  assert.equal(parseSignature(sig.replace('trusted comment: tc', 'trusted comment: é\tü')).trustedComment, 'é\tü');
});
