/**
 * Signature files (FORMAT.md §15): write and read back, refusals of the
 * signature (tampered, unknown key, missing), of malformed records, the real
 * minisign and zstd on the file, and scanFolder's ids against chunk/.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Compressor } from 'zstd-napi';
import { frame, minisign, type BrickpostError } from '@brickpost/manifest';
import { chunkFile, chunkId, chunkKey } from '../src/chunk/index.js';
import { createIdentity, type Identity } from '../src/keys/index.js';
import { HEADER_FRAME_NIBBLE, SIGNATURE_FORMAT, sigTrustedComment } from '../src/sigfile/records.js';
import { openSignatureFile, scanFolder, signDetached, SignatureFileWriter, type SigHeader, type SigRecord, type Verifier } from '../src/sigfile/index.js';

const MiB = 1 << 20;
const root = mkdtempSync(join(tmpdir(), 'bp-sigfile-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Made while the tests are collected: the malformed cases below are built from the header.
const me: Identity = createIdentity(join(root, 'home'), 'subscriber', false);
const stranger: Identity = createIdentity(join(root, 'stranger'), 'stranger', false);
const verifiers: Verifier[] = [verifierOf(me, 'subscriber')];

function verifierOf(id: Identity, name: string): Verifier {
  const pk = minisign.parsePublicKey(id.minisignPublicKey);
  return { keyId: pk.keyId, publicKey: pk.publicKey, name };
}

function header(over: Partial<SigHeader> = {}): Omit<SigHeader, 'created' | 'chunker'> {
  return {
    kind: 'signature',
    ids: 'sha256',
    dataset: 'survey',
    datasetId: '1ccfcc4c4c954a50',
    publisher: 'E2E2BEF2840CF832',
    state: { shipment: '20261122T050811Z-41d596c8', seq: 3 },
    subscriber: me.keyId,
    recipient: me.recipient,
    ...over,
  };
}

/** Chunks of `n` pseudo-random ids whose lengths add up to n × 1000 + 1. */
function chunksOf(n: number): Array<[Buffer, number]> {
  return Array.from({ length: n }, (_, i) => [randomBytes(32), i === 0 ? 1001 : 1000] as [Buffer, number]);
}

async function readAll(
  path: string,
  v = verifiers,
): Promise<{ header: SigHeader; records: SigRecord[]; sha256: string; signer: { keyId: string; name: string | null } }> {
  const f = await openSignatureFile(path, v);
  const records: SigRecord[] = [];
  for await (const r of f.records()) records.push(r);
  return { header: f.header, records, sha256: f.sha256, signer: f.signer };
}

async function refused(p: Promise<unknown>, code: string, message?: RegExp): Promise<BrickpostError> {
  let err: BrickpostError | undefined;
  await p.then(
    () => assert.fail(`expected ${code}`),
    (e: BrickpostError) => (err = e),
  );
  assert.equal(err!.code, code, err!.message);
  if (message) assert.match(err!.message, message);
  return err!;
}

describe('signature file', () => {
  const file = join(root, 'round.bpsig');
  const big = chunksOf(2500);

  beforeAll(async () => {
    const w = await SignatureFileWriter.create(file, header());
    await w.addFile('a/empty', 0, []);
    await w.addFile('a/big.bin', 2_500_001, big);
    await w.addFile('ünï/small', 1001, [[big[0]![0].toString('hex'), 1001]]);
    await w.addMissing('a/gone.txt', 'edited locally');
    const t = await w.close(me.signingKey);
    assert.deepEqual({ files: t.files, chunks: t.chunks, bytes: t.bytes }, { files: 3, chunks: 2501, bytes: 2_501_002 });
    assert.equal(t.sha256, createHash('sha256').update(readFileSync(file)).digest('hex'));
  });

  test('reads back what was written, with more records after 1024 refs', async () => {
    const r = await readAll(file);
    assert.equal(r.header.kind, 'signature');
    assert.equal(r.header.chunker, 'fastcdc-v1');
    assert.deepEqual(r.header.state, { shipment: '20261122T050811Z-41d596c8', seq: 3 });
    assert.deepEqual(r.signer, { keyId: me.keyId, name: 'subscriber' });
    assert.deepEqual(
      r.records.map((x) => [x.t, 'c' in x ? x.c.length : null]),
      [
        ['file', 0],
        ['file', 1024],
        ['more', 1024],
        ['more', 452],
        ['file', 1],
        ['missing', null],
        ['end', null],
      ],
    );
    const ids = r.records.slice(1, 4).flatMap((x) => ('c' in x ? x.c : []));
    assert.deepEqual(
      ids,
      big.map(([id, len]) => [id.toString('hex'), len]),
    );
    assert.deepEqual(r.records[5], { t: 'missing', p: 'a/gone.txt', reason: 'edited locally' });
    assert.deepEqual(r.records[6], { t: 'end', files: 3, chunks: 2501, bytes: 2_501_002 });
  });

  test('the real minisign accepts the .minisig, and zstd -d prints the records', () => {
    const v = spawnSync('minisign', ['-Vm', file, '-p', me.minisignPublicKeyFile], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stdout, new RegExp(`brickpost/v1 signature kind:signature dataset:1ccfcc4c4c954a50 subscriber:${me.keyId}`));
    const z = spawnSync('zstd', ['-dc', file], { encoding: 'utf8', maxBuffer: 64 * MiB });
    assert.equal(z.status, 0, z.stderr);
    const lines = z.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines[0].format, SIGNATURE_FORMAT);
    assert.equal(lines.length, 8);
  });

  test('a tampered file is SIGNATURE_INVALID', async () => {
    const bad = join(root, 'tampered.bpsig');
    const bytes = readFileSync(file);
    const at = bytes.length - 10;
    bytes[at] = bytes[at]! ^ 1;
    writeFileSync(bad, bytes);
    writeFileSync(`${bad}.minisig`, readFileSync(`${file}.minisig`));
    await refused(openSignatureFile(bad, verifiers), 'SIGNATURE_INVALID');
  });

  test('a file signed by an unknown key is UNTRUSTED_PUBLISHER, with a hint to trust it', async () => {
    const e = await refused(openSignatureFile(file, [verifierOf(stranger, 'stranger')]), 'UNTRUSTED_PUBLISHER', new RegExp(me.keyId));
    assert.match(e.hint ?? '', /brickpost trust add/);
  });

  test('a missing .minisig is UNSIGNED', async () => {
    const bare = join(root, 'bare.bpsig');
    writeFileSync(bare, readFileSync(file));
    await refused(openSignatureFile(bare, verifiers), 'UNSIGNED');
  });

  test('a signature by a trusted key other than the named subscriber is SIGNATURE_INVALID', async () => {
    const other = join(root, 'other-signer.bpsig');
    writeFileSync(other, readFileSync(file));
    const pre = minisign.createPrehash().update(readFileSync(other)).digest();
    await signDetached(
      other,
      pre,
      stranger.signingKey,
      sigTrustedComment({ kind: 'signature', datasetId: '1ccfcc4c4c954a50', subscriber: stranger.keyId }),
      'x',
    );
    await refused(openSignatureFile(other, [...verifiers, verifierOf(stranger, 'stranger')]), 'SIGNATURE_INVALID', /names subscriber/);
  });

  test('the writer refuses unsafe paths and chunks that do not add up', async () => {
    const w = await SignatureFileWriter.create(join(root, 'refused.bpsig'), header());
    await refused(w.addFile('../etc/passwd', 0, []), 'UNSAFE_PATH');
    await refused(w.addFile('x', 10, [[randomBytes(32), 9]]), 'USAGE', /add up to 9/);
    await refused(w.addFile('y', 10, [[randomBytes(31), 10]]), 'USAGE', /not 32 bytes/);
    await refused(w.close(stranger.signingKey), 'USAGE', /would be signed by/);
    await w.abort();
  });
});

describe('malformed signature files, validly signed', () => {
  const id = 'ab'.repeat(32);
  const head = (): Record<string, unknown> => ({
    t: 'signature',
    format: SIGNATURE_FORMAT,
    ...header(),
    created: '2026-01-01T00:00:00.000Z',
    chunker: 'fastcdc-v1',
  });
  const file = (p: string, size: number, c: unknown[]): Record<string, unknown> => ({ t: 'file', p, size, c });
  const end = (files: number, chunks: number, bytes: number): Record<string, unknown> => ({ t: 'end', files, chunks, bytes });
  const cases: Array<[string, string, string[]]> = [
    ['unknown field', 'MALFORMED', [JSON.stringify(head()), JSON.stringify({ ...file('a', 0, []), mode: 420 }), JSON.stringify(end(1, 0, 0))]],
    ['missing field', 'MALFORMED', [JSON.stringify(head()), JSON.stringify({ t: 'file', p: 'a', c: [] }), JSON.stringify(end(1, 0, 0))]],
    ['more without a file', 'MALFORMED', [JSON.stringify(head()), JSON.stringify({ t: 'more', c: [[id, 5]] }), JSON.stringify(end(0, 1, 0))]],
    ['chunks short of the size', 'MALFORMED', [JSON.stringify(head()), JSON.stringify(file('a', 6, [[id, 5]])), JSON.stringify(end(1, 1, 6))]],
    ['chunks beyond the size', 'MALFORMED', [JSON.stringify(head()), JSON.stringify(file('a', 4, [[id, 5]])), JSON.stringify(end(1, 1, 4))]],
    ['wrong end counts', 'MALFORMED', [JSON.stringify(head()), JSON.stringify(file('a', 5, [[id, 5]])), JSON.stringify(end(1, 2, 5))]],
    ['upper-case chunk id', 'MALFORMED', [JSON.stringify(head()), JSON.stringify(file('a', 5, [[id.toUpperCase(), 5]])), JSON.stringify(end(1, 1, 5))]],
    ['empty chunk', 'MALFORMED', [JSON.stringify(head()), JSON.stringify(file('a', 0, [[id, 0]])), JSON.stringify(end(1, 1, 0))]],
    ['duplicate key', 'MALFORMED', [JSON.stringify(head()), '{"t":"file","p":"a","p":"b","size":0,"c":[]}', JSON.stringify(end(1, 0, 0))]],
    ['a fraction', 'MALFORMED', [JSON.stringify(head()), '{"t":"file","p":"a","size":0.5,"c":[]}', JSON.stringify(end(1, 0, 0))]],
    ['a record after the end', 'MALFORMED', [JSON.stringify(head()), JSON.stringify(end(0, 0, 0)), JSON.stringify(end(0, 0, 0))]],
    ['a second header', 'MALFORMED', [JSON.stringify(head()), JSON.stringify(head()), JSON.stringify(end(0, 0, 0))]],
    ['keyed ids without a dataset id', 'MALFORMED', [JSON.stringify({ ...head(), ids: 'hmac', datasetId: null }), JSON.stringify(end(0, 0, 0))]],
    ['unknown kind', 'MALFORMED', [JSON.stringify({ ...head(), kind: 'wish' }), JSON.stringify(end(0, 0, 0))]],
    ['newer format', 'UNSUPPORTED_VERSION', [JSON.stringify({ ...head(), format: 'brickpost-signature/v2' }), JSON.stringify(end(0, 0, 0))]],
    ['unsafe path', 'UNSAFE_PATH', [JSON.stringify(head()), JSON.stringify(file('a/../b', 0, [])), JSON.stringify(end(1, 0, 0))]],
    ['no end record', 'TRUNCATED', [JSON.stringify(head()), JSON.stringify(file('a', 0, []))]],
  ];
  for (const [name, code, lines] of cases) {
    test(`${name}: ${code}`, async () => {
      const path = join(root, `bad-${name.replace(/\W+/g, '-')}.bpsig`);
      await craft(path, lines.join('\n') + '\n');
      await refused(readAll(path), code);
    });
  }

  test('a crafted file that follows every rule is read', async () => {
    const path = join(root, 'crafted-good.bpsig');
    await craft(path, [JSON.stringify(head()), JSON.stringify(file('a', 5, [[id, 5]])), JSON.stringify(end(1, 1, 5))].join('\n') + '\n');
    assert.equal((await readAll(path)).records.length, 2);
  });

  test('a file that is not zstd after its header frame is refused', async () => {
    const path = join(root, 'not-zstd.bpsig');
    await craft(path, null, Buffer.from('{"t":"signature"}\n'));
    await refused(readAll(path), 'MALFORMED', /zstd/);
  });

  /** Writes a signature file of `text` (or raw bytes after the header frame), signed with the subscriber's key. */
  async function craft(path: string, text: string | null, raw?: Buffer): Promise<void> {
    const z = new Compressor();
    const body = raw ?? z.compress(Buffer.from(text!, 'utf8'));
    const bytes = Buffer.concat([frame.skippableFrame(HEADER_FRAME_NIBBLE, Buffer.from(`${SIGNATURE_FORMAT}\n`)), body]);
    writeFileSync(path, bytes);
    const comment = sigTrustedComment({ kind: 'signature', datasetId: '1ccfcc4c4c954a50', subscriber: me.keyId });
    await signDetached(path, minisign.createPrehash().update(bytes).digest(), me.signingKey, comment, 'crafted');
  }
});

describe('scanFolder', () => {
  const dir = join(root, 'folder');
  const secret = randomBytes(32);
  const key = chunkKey(secret);

  beforeAll(() => {
    mkdirSync(join(dir, 'b', 'c'), { recursive: true });
    mkdirSync(join(dir, '.brickpost'));
    writeFileSync(join(dir, '.brickpost', 'state.json'), '{}');
    // 13 MiB of random bytes, then 6 MiB of text: larger than a whole-file read, several chunks.
    const rows = Array.from({ length: 200_000 }, (_, i) => `${i},station-${i % 977},${(i * 7919) % 100003}\n`).join('');
    writeFileSync(join(dir, 'b', 'big.bin'), Buffer.concat([stream(13 * MiB, 3), Buffer.from(rows).subarray(0, 6 * MiB)]));
    writeFileSync(join(dir, 'b', 'c', 'small.txt'), 'hello\n');
    writeFileSync(join(dir, 'A.txt'), stream(300_000, 4));
    writeFileSync(join(dir, 'empty'), '');
  });

  async function expected(path: string, k: Buffer | null): Promise<Array<[string, number]>> {
    const out: Array<[string, number]> = [];
    for await (const c of chunkFile(path)) out.push([(k ? chunkId(k, c) : createHash('sha256').update(c).digest()).toString('hex'), c.length]);
    return out;
  }

  test('with the dataset key, ids are the chunk ids pack gives; files in manifest order; .brickpost skipped', async () => {
    const got: Array<{ p: string; size: number; chunks: Array<[string, number]> }> = [];
    let bytes = 0;
    for await (const f of scanFolder(dir, { key, onBytes: (n) => (bytes += n) })) {
      got.push({ p: f.p, size: f.size, chunks: f.chunks.map(([id, len]) => [id.toString('hex'), len]) });
    }
    assert.deepEqual(
      got.map((f) => f.p),
      ['A.txt', 'b/big.bin', 'b/c/small.txt', 'empty'],
    );
    for (const f of got) assert.deepEqual(f.chunks, await expected(join(dir, ...f.p.split('/')), key), f.p);
    assert.ok(got[1]!.chunks.length > 4, 'the big file has several chunks');
    assert.equal(
      bytes,
      got.reduce((s, f) => s + f.size, 0),
    );
  });

  test('without a key, ids are SHA-256 of each chunk, with one thread as with several', async () => {
    for (const workers of [1, 3]) {
      const got: Array<[string, Array<[string, number]>]> = [];
      for await (const f of scanFolder(dir, { workers })) got.push([f.p, f.chunks.map(([id, len]) => [id.toString('hex'), len])]);
      for (const [p, chunks] of got) assert.deepEqual(chunks, await expected(join(dir, ...p.split('/')), null), `${p} with ${workers} threads`);
    }
  });

  test('a file that vanishes between walk and read is skipped and reported', async () => {
    const d = join(root, 'vanish');
    mkdirSync(d);
    for (let i = 0; i < 40; i++) writeFileSync(join(d, `f${String(i).padStart(2, '0')}`), stream(100_000, i));
    const skipped: string[] = [];
    const seen: string[] = [];
    for await (const f of scanFolder(d, { workers: 1, onSkip: (s) => skipped.push(s.path) })) {
      seen.push(f.p);
      if (f.p === 'f00') unlinkSync(join(d, 'f39'));
    }
    assert.equal(seen.length + skipped.length, 40);
    assert.deepEqual(skipped, ['f39']);
  });
});

/** A reproducible pseudo-random byte stream (AES-256-CTR of zeros). */
function stream(n: number, seed: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
}
