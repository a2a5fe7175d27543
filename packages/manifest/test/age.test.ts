// Round trips, random access, tamper and truncation detection, keys and
// limits of the age implementation in src/age.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'vitest';
import { isBrickpostError, type ErrorCode } from '../src/errors.js';
import {
  decodeArmor,
  decrypt,
  encodeArmor,
  encrypt,
  formatIdentityFile,
  generateHybridIdentity,
  generateX25519Identity,
  identityToRecipient,
  openFile,
  parseHeader,
  parseIdentity,
  parseIdentityFile,
  parseRecipient,
  passphraseIdentity,
  passphraseRecipient,
  PayloadDecryptor,
  PayloadEncryptor,
  createHeader,
  readPlainRange,
  SEALED_CHUNK,
  sealedSize,
  STREAM_CHUNK,
} from '../src/age/index.js';

const KiB = 1024;
const alice = generateX25519Identity();
const aliceId = parseIdentity(alice.identity);
const aliceTo = parseRecipient(alice.recipient);

function throwsCode(fn: () => unknown, code: ErrorCode, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(isBrickpostError(e), `not a BrickpostError: ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

test('round trips at chunk-boundary sizes', () => {
  for (const size of [0, 1, STREAM_CHUNK - 1, STREAM_CHUNK, STREAM_CHUNK + 1, 3 * STREAM_CHUNK, 5 * 1024 * KiB + 123]) {
    const plain = randomBytes(size);
    const cipher = encrypt(plain, [aliceTo]);
    const { payloadStart } = openFile(cipher, [aliceId]);
    assert.equal(cipher.length, payloadStart + sealedSize(size), `size ${size}`);
    assert.ok(decrypt(cipher, [aliceId]).equals(plain), `size ${size}`);
  }
});

test('armored input is refused unless decoded first', () => {
  const plain = randomBytes(STREAM_CHUNK + 99);
  const armored = Buffer.from('\n' + encodeArmor(encrypt(plain, [aliceTo])));
  throwsCode(() => decrypt(armored, [aliceId], 'data/manifest.age'), 'MALFORMED', /^"data\/manifest\.age" is ASCII-armored/);
  throwsCode(() => openFile(armored, [aliceId]), 'MALFORMED', /ASCII-armored/);
  assert.ok(decrypt(decodeArmor(armored), [aliceId]).equals(plain));
});

test('multiple recipients each decrypt; others do not', () => {
  const keys = [generateX25519Identity(), generateX25519Identity(), generateX25519Identity()];
  const plain = randomBytes(100 * KiB);
  const cipher = encrypt(
    plain,
    keys.map((k) => parseRecipient(k.recipient)),
  );
  for (const k of keys) assert.ok(decrypt(cipher, [parseIdentity(k.identity)]).equals(plain));
  throwsCode(() => decrypt(cipher, [aliceId]), 'NO_MATCHING_KEY', /^no identity matches any recipient of /);
});

test('post-quantum hybrid recipients round trip alongside X25519', () => {
  const pq = generateHybridIdentity();
  assert.match(pq.identity, /^AGE-SECRET-KEY-PQ-1[0-9A-Z]+$/);
  assert.match(pq.recipient, /^age1pq1[0-9a-z]+$/);
  assert.equal(identityToRecipient(pq.identity), pq.recipient);
  const plain = randomBytes(STREAM_CHUNK + 1);
  const cipher = encrypt(plain, [parseRecipient(pq.recipient), aliceTo]);
  assert.ok(decrypt(cipher, [parseIdentity(pq.identity)]).equals(plain));
  assert.ok(decrypt(cipher, [aliceId]).equals(plain));
  const other = parseIdentity(generateHybridIdentity().identity);
  throwsCode(() => decrypt(encrypt(plain, [parseRecipient(pq.recipient)]), [other]), 'NO_MATCHING_KEY');
  throwsCode(() => parseRecipient(pq.recipient.slice(0, 200)), 'BAD_KEY');
});

test('passphrase round trip, wrong passphrase, and passphrase must be alone', () => {
  const plain = randomBytes(70 * KiB);
  const cipher = encrypt(plain, [passphraseRecipient('correct horse', 10)]);
  assert.ok(decrypt(cipher, [aliceId, passphraseIdentity('correct horse')]).equals(plain));
  throwsCode(() => decrypt(cipher, [passphraseIdentity('wrong')]), 'NO_MATCHING_KEY');
  throwsCode(() => encrypt(plain, [passphraseRecipient('a', 10), aliceTo]), 'USAGE');
  throwsCode(() => passphraseRecipient('a', 21), 'USAGE');
});

test('encryptor and decryptor accept any piece sizes', () => {
  const plain = randomBytes(4 * STREAM_CHUNK);
  for (const sizes of [[STREAM_CHUNK], [1, STREAM_CHUNK - 1, 0, 2 * STREAM_CHUNK], [7777], [SEALED_CHUNK + 5]]) {
    const { header, fileKey } = createHeader([aliceTo]);
    const enc = new PayloadEncryptor(fileKey);
    const parts = [header, enc.nonce];
    let i = 0;
    for (let pos = 0; pos < plain.length; i++) {
      const n = sizes[i % sizes.length]!;
      parts.push(...enc.update(plain.subarray(pos, pos + n)));
      pos += n;
    }
    parts.push(...enc.final());
    const cipher = Buffer.concat(parts);
    const { fileKey: key, nonce, payloadStart } = openFile(cipher, [aliceId]);
    const dec = new PayloadDecryptor(key, nonce);
    const out: Buffer[] = [];
    i = 0;
    for (let pos = payloadStart; pos < cipher.length; i++) {
      const n = sizes[(i + 1) % sizes.length]!;
      out.push(...dec.update(cipher.subarray(pos, pos + n)));
      pos += n;
    }
    out.push(...dec.final());
    assert.ok(Buffer.concat(out).equals(plain), `pieces ${sizes.join(',')}`);
  }
});

test('random access reads only the chunks it needs and verifies them', async () => {
  const plain = randomBytes(5 * STREAM_CHUNK + 1234);
  const cipher = encrypt(plain, [aliceTo]);
  const { fileKey, nonce, payloadStart } = openFile(cipher, [aliceId]);
  let reads = 0;
  const readAt = async (pos: number, len: number) => {
    reads++;
    return cipher.subarray(pos, pos + len);
  };
  const ranges: [number, number][] = [
    [0, 0],
    [0, 1],
    [STREAM_CHUNK - 1, 2],
    [STREAM_CHUNK, STREAM_CHUNK],
    [100, 3 * STREAM_CHUNK],
    [plain.length - 1, 1],
    [0, plain.length],
    [5 * STREAM_CHUNK, 1234],
    [2 * STREAM_CHUNK + 7, 10],
  ];
  for (const [off, len] of ranges) {
    const got = await readPlainRange(readAt, cipher.length, payloadStart, fileKey, nonce, off, len);
    assert.ok(got.equals(plain.subarray(off, off + len)), `range ${off}+${len}`);
  }
  assert.equal(reads, ranges.length - 1);
  await assert.rejects(readPlainRange(readAt, cipher.length, payloadStart, fileKey, nonce, plain.length, 1), (e) => isBrickpostError(e, 'TRUNCATED'));
  const tampered = Buffer.from(cipher);
  tampered[payloadStart + 2 * SEALED_CHUNK + 5]! ^= 0x80;
  const readTampered = async (pos: number, len: number) => tampered.subarray(pos, pos + len);
  await assert.rejects(
    readPlainRange(readTampered, cipher.length, payloadStart, fileKey, nonce, 2 * STREAM_CHUNK - 1, 2),
    (e) => isBrickpostError(e, 'PAYLOAD_CORRUPT') && /chunk 2/.test(e.message),
  );
  const untouched = await readPlainRange(readTampered, cipher.length, payloadStart, fileKey, nonce, 0, STREAM_CHUNK);
  assert.ok(untouched.equals(plain.subarray(0, STREAM_CHUNK)));
  // A file cut at a chunk boundary: the new last chunk was sealed as non-final.
  const cut = payloadStart + 3 * SEALED_CHUNK;
  await assert.rejects(readPlainRange(readAt, cut, payloadStart, fileKey, nonce, 2 * STREAM_CHUNK, 10), (e) => isBrickpostError(e, 'PAYLOAD_CORRUPT'));
});

test('tampering, truncation and appending are detected', () => {
  const plain = randomBytes(3 * STREAM_CHUNK + 10);
  const cipher = encrypt(plain, [aliceTo]);
  const { payloadStart, headerLength } = openFile(cipher, [aliceId]);
  const flip = (at: number) => {
    const t = Buffer.from(cipher);
    t[at]! ^= 1;
    return t;
  };
  throwsCode(() => decrypt(flip(payloadStart + SEALED_CHUNK + 3), [aliceId]), 'PAYLOAD_CORRUPT', /chunk 1 /);
  // Another valid base64 character in the MAC (a flipped bit may not be base64 at all).
  const macChanged = Buffer.from(cipher);
  macChanged[headerLength - 3] = macChanged[headerLength - 3] === 0x41 ? 0x42 : 0x41;
  throwsCode(() => decrypt(macChanged, [aliceId]), 'HEADER_MAC_MISMATCH');
  throwsCode(() => decrypt(flip(headerLength + 2), [aliceId]), 'PAYLOAD_CORRUPT', /chunk 0 /);
  const swapped = Buffer.from(cipher);
  cipher.copy(swapped, payloadStart, payloadStart + SEALED_CHUNK, payloadStart + 2 * SEALED_CHUNK);
  cipher.copy(swapped, payloadStart + SEALED_CHUNK, payloadStart, payloadStart + SEALED_CHUNK);
  throwsCode(() => decrypt(swapped, [aliceId]), 'PAYLOAD_CORRUPT', /chunk 0 /);
  throwsCode(() => decrypt(cipher.subarray(0, payloadStart + 2 * SEALED_CHUNK), [aliceId]), 'TRUNCATED');
  throwsCode(() => decrypt(cipher.subarray(0, cipher.length - 1), [aliceId]), 'PAYLOAD_CORRUPT');
  throwsCode(() => decrypt(cipher.subarray(0, payloadStart), [aliceId]), 'TRUNCATED');
  throwsCode(() => decrypt(cipher.subarray(0, payloadStart - 1), [aliceId]), 'TRUNCATED');
  throwsCode(() => decrypt(cipher.subarray(0, headerLength - 1), [aliceId]), 'TRUNCATED');
  throwsCode(() => decrypt(Buffer.concat([cipher, Buffer.from('x')]), [aliceId]), 'PAYLOAD_CORRUPT');
  // A full final chunk followed by more data.
  const full = encrypt(randomBytes(STREAM_CHUNK), [aliceTo]);
  throwsCode(() => decrypt(Buffer.concat([full, randomBytes(20)]), [aliceId]), 'MALFORMED', /after its final chunk/);
  throwsCode(
    () =>
      decrypt(
        cipher,
        [generateX25519Identity()].map((k) => parseIdentity(k.identity)),
      ),
    'NO_MATCHING_KEY',
  );
});

test('keys: spec example, bech32 checks, identity files', () => {
  const spec = 'AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX';
  assert.equal(identityToRecipient(spec), 'age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj');
  assert.match(alice.identity, /^AGE-SECRET-KEY-1[0-9A-Z]{58}$/);
  assert.equal(identityToRecipient(alice.identity), alice.recipient);
  throwsCode(() => parseRecipient(alice.recipient.slice(0, -1) + (alice.recipient.endsWith('q') ? 'p' : 'q')), 'BAD_KEY', /checksum/);
  throwsCode(() => parseRecipient('age1' + alice.recipient.slice(4, 10).toUpperCase() + alice.recipient.slice(10)), 'BAD_KEY', /mixed case/);
  throwsCode(() => parseIdentity(alice.identity.toLowerCase()), 'BAD_KEY');
  const created = new Date('2024-05-06T07:08:09Z');
  const text = formatIdentityFile(alice.identity, created);
  assert.match(text, /^# created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)\n# public key: age1[0-9a-z]{58}\nAGE-SECRET-KEY-1[0-9A-Z]{58}\n$/);
  assert.ok(text.includes(`# public key: ${alice.recipient}\n${alice.identity}\n`));
  const two = generateX25519Identity();
  const ids = parseIdentityFile(`${text}\r\n\n# another\r\n${two.identity}\r\n`);
  assert.equal(ids.length, 2);
  throwsCode(() => parseIdentityFile(`# ok\n${alice.recipient}\n`), 'BAD_KEY', /line 2/);
  throwsCode(() => parseIdentityFile('# only comments\n'), 'BAD_KEY');
});

test('header parsing limits and strictness', () => {
  const stanza = '-> X25519 ' + 'A'.repeat(43) + '\n' + 'A'.repeat(43) + '\n';
  const mac = '--- ' + 'A'.repeat(43) + '\n';
  throwsCode(() => parseHeader(Buffer.from('age-encryption.org/v1\n' + stanza.repeat(1025) + mac)), 'LIMIT_EXCEEDED', /stanzas/);
  throwsCode(() => parseHeader(Buffer.from('age-encryption.org/v1\n-> x ' + 'a'.repeat(2 << 20))), 'LIMIT_EXCEEDED');
  throwsCode(() => parseHeader(Buffer.from('age-encryption.org/v1\n' + stanza)), 'TRUNCATED');
  throwsCode(() => parseHeader(Buffer.from('age-encryption.org/v1\n' + mac)), 'MALFORMED', /no recipient stanzas/);
  throwsCode(() => parseHeader(Buffer.from('age-encryption.org/v2\n' + stanza + mac)), 'UNSUPPORTED_VERSION');
  const ok = parseHeader(Buffer.from('age-encryption.org/v1\n' + stanza + mac + 'payload'));
  assert.equal(ok.stanzas.length, 1);
  assert.equal(ok.headerLength, ('age-encryption.org/v1\n' + stanza + mac).length);
});
