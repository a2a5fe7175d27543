import { test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  generateSigningKey,
  formatPublicKeyFile,
  publicKeyString,
  parsePublicKey,
  formatSecretKeyFile,
  parseSecretKeyFile,
  signBuffer,
  signPrehashed,
  signLegacy,
  createPrehash,
  verifySignature,
  keyIdHex,
} from '../src/sign/index.js';
import { isBrickpostError } from '../src/errors.js';

const probe = spawnSync('minisign', ['-v'], { encoding: 'utf8' });
const skip = probe.error || probe.status !== 0 ? 'minisign binary not installed' : false;

function minisign(args: string[], cwd: string): { status: number | null; out: string } {
  // Empty stdin: minisign must never wait for a password.
  const r = spawnSync('minisign', args, { cwd, input: '', encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'brickpost-sign-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test.skipIf(skip)(`minisign -V accepts our signatures (-P, -p, -x, legacy)${skip ? ` [skipped: ${skip}]` : ''}`, () =>
  withDir(async (dir) => {
    const key = generateSigningKey();
    const file = join(dir, 'data.bin');
    const message = Buffer.alloc(300_000, 0xa5);
    await writeFile(file, message);
    await writeFile(join(dir, 'data.bin.minisig'), signBuffer(message, key, 'timestamp:1700000000\tfile:data.bin'));
    let r = minisign(['-V', '-P', publicKeyString(key), '-m', file], dir);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /Trusted comment: timestamp:1700000000\tfile:data.bin/);

    await writeFile(join(dir, 'key.pub'), formatPublicKeyFile(key));
    await writeFile(join(dir, 'other.sig'), signLegacy(message, key, 'legacy one'));
    r = minisign(['-V', '-p', join(dir, 'key.pub'), '-x', join(dir, 'other.sig'), '-m', file], dir);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /legacy one/);
    // -H refuses legacy signatures: proves the file really holds one.
    r = minisign(['-V', '-H', '-p', join(dir, 'key.pub'), '-x', join(dir, 'other.sig'), '-m', file], dir);
    assert.notEqual(r.status, 0, r.out);

    // Streamed prehash of the file on disk, as the engine signs large files.
    const h = createPrehash();
    await pipeline(createReadStream(file, { highWaterMark: 7777 }), h);
    await writeFile(join(dir, 'streamed.sig'), signPrehashed(h.digest(), key, 'streamed', 'free text'));
    r = minisign(['-V', '-Q', '-P', publicKeyString(key), '-x', join(dir, 'streamed.sig'), '-m', file], dir);
    assert.equal(r.status, 0, r.out);
    assert.equal(r.out, 'streamed\n');
  }),
);

test.skipIf(skip)(`minisign -V rejects our signatures after tampering or with another key${skip ? ` [skipped: ${skip}]` : ''}`, () =>
  withDir(async (dir) => {
    const key = generateSigningKey();
    const file = join(dir, 'f');
    await writeFile(file, 'original');
    const sig = signBuffer(Buffer.from('original'), key, 'tc');
    await writeFile(`${file}.minisig`, sig.replace('trusted comment: tc', 'trusted comment: tX'));
    assert.notEqual(minisign(['-V', '-P', publicKeyString(key), '-m', file], dir).status, 0);
    await writeFile(`${file}.minisig`, sig);
    assert.notEqual(minisign(['-V', '-P', publicKeyString(generateSigningKey()), '-m', file], dir).status, 0);
    await writeFile(file, 'originaL');
    assert.notEqual(minisign(['-V', '-P', publicKeyString(key), '-m', file], dir).status, 0);
  }),
);

test.skipIf(skip)(`we verify what minisign -S signs with a minisign -G -W key${skip ? ` [skipped: ${skip}]` : ''}`, () =>
  withDir(async (dir) => {
    let r = minisign(['-G', '-W', '-p', 'ms.pub', '-s', 'ms.key'], dir);
    assert.equal(r.status, 0, r.out);
    const pubText = await readFile(join(dir, 'ms.pub'), 'utf8');
    const pub = parsePublicKey(pubText);
    // Same id as minisign printed it (0.11 drops leading zeros).
    const printed = /^untrusted comment: minisign public key ([0-9A-F]+)\n/.exec(pubText)?.[1];
    assert.equal(printed?.padStart(16, '0'), pub.keyIdHex);
    assert.match(r.out, new RegExp(pub.line.replace(/[+/]/g, '\\$&')));
    const trusted = [{ keyId: pub.keyId, publicKey: pub.publicKey }];

    const file = join(dir, 'msg.txt');
    const message = Buffer.from('signed by the real minisign\n');
    await writeFile(file, message);
    r = minisign(['-S', '-W', '-s', 'ms.key', '-t', 'tc from minisign', '-m', file], dir);
    assert.equal(r.status, 0, r.out);
    const sig = await readFile(`${file}.minisig`, 'utf8');
    assert.deepEqual(verifySignature(sig, message, trusted), { keyIdHex: pub.keyIdHex, trustedComment: 'tc from minisign' });
    assert.equal(verifySignature(sig, { prehash: createPrehash().update(message).digest() }, trusted).keyIdHex, pub.keyIdHex);
    assert.throws(
      () => verifySignature(sig, Buffer.from('other'), trusted),
      (e) => isBrickpostError(e, 'SIGNATURE_INVALID'),
    );
    assert.throws(
      () => verifySignature(sig.replace('tc from minisign', 'tc from mallory'), message, trusted),
      (e) => isBrickpostError(e, 'SIGNATURE_INVALID'),
    );
    const stranger = generateSigningKey();
    assert.throws(
      () => verifySignature(sig, message, [{ keyId: stranger.keyId, publicKey: stranger.publicKey }]),
      (e) => isBrickpostError(e, 'UNTRUSTED_PUBLISHER') && e.message.includes(pub.keyIdHex),
    );

    // Default trusted comment and the legacy format (-l).
    r = minisign(['-S', '-l', '-W', '-s', 'ms.key', '-x', 'legacy.sig', '-m', file], dir);
    assert.equal(r.status, 0, r.out);
    const legacy = verifySignature(await readFile(join(dir, 'legacy.sig')), message, trusted);
    assert.match(legacy.trustedComment, /^timestamp:\d+\tfile:msg\.txt$/);

    // minisign's unencrypted key file (zero checksum) is readable, and signs the same.
    const key = parseSecretKeyFile(await readFile(join(dir, 'ms.key'), 'utf8'));
    assert.deepEqual(key.keyId, pub.keyId);
    assert.deepEqual(key.publicKey, pub.publicKey);
    assert.equal(signBuffer(message, key, 'tc from minisign').split('\n').slice(1).join('\n'), sig.split('\n').slice(1).join('\n'));
  }),
);

test.skipIf(skip)(`minisign -S accepts our secret key file${skip ? ` [skipped: ${skip}]` : ''}`, () =>
  withDir(async (dir) => {
    const key = generateSigningKey();
    await writeFile(join(dir, 'our.key'), formatSecretKeyFile(key), { mode: 0o600 });
    await writeFile(join(dir, 'our.pub'), formatPublicKeyFile(key));
    const file = join(dir, 'm');
    await writeFile(file, 'message');
    // -p makes minisign check the signature against our public key file too.
    let r = minisign(['-S', '-W', '-s', 'our.key', '-p', 'our.pub', '-t', 'ours', '-m', file], dir);
    assert.equal(r.status, 0, r.out);
    const sig = await readFile(`${file}.minisig`, 'utf8');
    assert.equal(verifySignature(sig, Buffer.from('message'), [key]).keyIdHex, keyIdHex(key.keyId));
    assert.equal(sig.split('\n').slice(1).join('\n'), signBuffer(Buffer.from('message'), key, 'ours').split('\n').slice(1).join('\n'));
    // -R recreates the public key from our secret key file: the same key.
    r = minisign(['-R', '-s', 'our.key', '-p', 'again.pub'], dir);
    assert.equal(r.status, 0, r.out);
    const again = await readFile(join(dir, 'again.pub'), 'utf8');
    assert.equal(again.split('\n')[1], publicKeyString(key));
    assert.deepEqual(parsePublicKey(again).publicKey, key.publicKey);
    // minisign 0.11 drops leading zeros of the id in the comment; upstream now pads to 16.
    const printed = /^untrusted comment: minisign public key ([0-9A-F]+)\n/.exec(again)?.[1];
    assert.equal(printed?.padStart(16, '0'), keyIdHex(key.keyId));
  }),
);
