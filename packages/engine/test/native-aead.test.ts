/**
 * The native core seals and opens age's STREAM chunks with the OpenSSL Node
 * carries (aead.rs), or with RustCrypto where that is missing or
 * BRICKPOST_AEAD=rust asks for it. Both must give the same bytes, open
 * each other's, refuse a flipped bit, and open a payload whose final
 * chunk is a full one (first tried as a non-final chunk, which must leave
 * the bytes as they were for the second try).
 */
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadNative, nativeErrorParts, type NativeBinding } from '@brickpost/native';

const native = loadNative();
// The core is optional where Rust is not installed or switched off on purpose; a core that failed to build fails here.
const absent = native.binding === null && (native.disabled || native.reason?.startsWith('cargo not found') === true);
const skipped = absent ? ` (skipped: no native core here, ${native.reason})` : '';

const root = mkdtempSync(join(tmpdir(), 'bp-aead-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const KEY = Buffer.alloc(32, 0x5a);
const CHUNK_KEY = Buffer.alloc(32, 0x33);
/** Payload sizes around STREAM's 64 KiB chunks: empty, partial, exactly one, one more byte, and three full chunks (a full final chunk). */
const SIZES = [0, 1, 65535, 65536, 65537, 3 * 65536, 200_000];

function plaintext(n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + (i >>> 9)) & 0xff;
  return b;
}

/** What runs in a child process: seals each size into DIR/rust-N, opens each back, prints the backend and what it opened. */
const CHILD = `
import { loadNative } from '@brickpost/native';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
const [dir, sizes] = JSON.parse(process.argv[1]);
const core = loadNative().binding;
const key = Buffer.alloc(32, 0x5a);
const opened = [];
for (const n of sizes) {
  const plain = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) plain[i] = (i * 131 + (i >>> 9)) & 0xff;
  const sealed = await new core.PayloadSealer(key, Buffer.alloc(0)).seal([plain], true);
  writeFileSync(dir + '/rust-' + n, sealed);
  const r = new core.PackReader(openSync(dir + '/rust-' + n, 'r'), sealed.length, 0, key, Buffer.alloc(32, 0x33));
  const back = n > 0 ? await r.readPlain(0, n) : Buffer.alloc(0);
  opened.push(back.equals(plain) && (await r.finish()).plain === n);
  r.close();
}
console.log(JSON.stringify({ aead: core.aead(), opened }));
`;

function rustSide(): { aead: string; opened: boolean[] } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, JSON.stringify([root, SIZES])], {
    env: { ...process.env, BRICKPOST_AEAD: 'rust' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim()) as { aead: string; opened: boolean[] };
}

async function open(core: NativeBinding, path: string, n: number): Promise<Buffer> {
  const size = readFileSync(path).length;
  const fd = openSync(path, 'r');
  const r = new core.PackReader(fd, size, 0, KEY, CHUNK_KEY);
  closeSync(fd);
  try {
    const back = n > 0 ? await r.readPlain(0, n) : Buffer.alloc(0);
    assert.equal((await r.finish()).plain, n);
    return back;
  } finally {
    r.close();
  }
}

test.skipIf(absent)(`OpenSSL and RustCrypto seal the same bytes and open each other's${skipped}`, async () => {
  const core = native.binding!;
  // Node's builds carry OpenSSL and export its EVP functions to addons: where they do, the core uses them.
  assert.equal(core.aead(), process.versions.openssl ? 'openssl' : 'rustcrypto');
  const rust = rustSide();
  assert.equal(rust.aead, 'rustcrypto', 'BRICKPOST_AEAD=rust chooses RustCrypto');
  assert.deepEqual(
    rust.opened,
    SIZES.map(() => true),
    'RustCrypto opens what it sealed',
  );
  for (const n of SIZES) {
    const plain = plaintext(n);
    const here = await new core.PayloadSealer(KEY, Buffer.alloc(0)).seal([plain], true);
    const there = readFileSync(join(root, `rust-${n}`));
    assert.ok(here.equals(there), `${n} bytes: the two implementations sealed different bytes`);
    assert.ok((await open(core, join(root, `rust-${n}`), n)).equals(plain), `${n} bytes: not opened back`);
  }
});

test.skipIf(absent)(`a flipped bit is refused, in a middle chunk and in a full final one, and the bytes before it are released${skipped}`, async () => {
  const core = native.binding!;
  const n = 3 * 65536;
  const sealed = await new core.PayloadSealer(KEY, Buffer.alloc(0)).seal([plaintext(n)], true);
  for (const [at, chunk] of [
    [65536 + 16 + 100, 1],
    [2 * (65536 + 16) + 7, 2],
  ] as const) {
    const bad = Buffer.from(sealed);
    bad[at]! ^= 1;
    const path = join(root, `bad-${chunk}`);
    writeFileSync(path, bad);
    const fd = openSync(path, 'r');
    const r = new core.PackReader(fd, bad.length, 0, KEY, CHUNK_KEY);
    closeSync(fd);
    try {
      assert.ok((await r.readPlain(0, chunk * 65536)).equals(plaintext(chunk * 65536)), 'the chunks before the damage');
      let err: unknown;
      await r.readPlain(chunk * 65536, 10).catch((e: unknown) => (err = e));
      const parts = nativeErrorParts(err);
      assert.equal(parts.code, 'PAYLOAD_CORRUPT', parts.message);
      assert.match(parts.message, new RegExp(`chunk ${chunk} fails authentication`));
    } finally {
      r.close();
    }
  }
});
