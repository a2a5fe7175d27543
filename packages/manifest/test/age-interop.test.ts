// Interoperability of src/age with the real `age` / `age-keygen` tools and
// with typage (the age-encryption npm package), an independent implementation.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, test } from 'vitest';
import {
  Decrypter,
  Encrypter,
  armor,
  generateHybridIdentity as typageHybridIdentity,
  generateIdentity,
  identityToRecipient as typageRecipient,
} from 'age-encryption';
import {
  decodeArmor,
  decrypt,
  encrypt,
  formatIdentityFile,
  generateHybridIdentity,
  generateX25519Identity,
  identityToRecipient,
  parseIdentity,
  parseIdentityFile,
  parseRecipient,
  passphraseIdentity,
  passphraseRecipient,
  STREAM_CHUNK,
} from '../src/age/index.js';

const hasAge = spawnSync('age', ['--version']).status === 0 && spawnSync('age-keygen', ['--version']).status === 0;
const noAge = hasAge ? false : 'age / age-keygen binaries not installed';
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'brickpost-age-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(cmd: string, args: string[], input?: Buffer): Buffer {
  const r = spawnSync(cmd, args, { input, maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr?.toString()}`);
  return r.stdout;
}

const sizes = [0, 1, STREAM_CHUNK, STREAM_CHUNK + 1, 3 * 1024 * 1024 + 5];

test.skipIf(noAge)(`age -d -i decrypts our files, with our identity file${noAge ? ` [skipped: ${noAge}]` : ''}`, async () => {
  const key = generateX25519Identity();
  const idPath = join(dir, 'ours.key');
  await writeFile(idPath, formatIdentityFile(key.identity, new Date()), { mode: 0o600 });
  for (const size of sizes) {
    const plain = randomBytes(size);
    const file = join(dir, `ours-${size}.age`);
    await writeFile(file, encrypt(plain, [parseRecipient(key.recipient), parseRecipient(generateX25519Identity().recipient)]));
    assert.ok(run('age', ['-d', '-i', idPath, file]).equals(plain), `size ${size}`);
  }
});

test.skipIf(noAge)(`we decrypt files from age -r and age -a, with age-keygen identity files${noAge ? ` [skipped: ${noAge}]` : ''}`, async () => {
  const idPath = join(dir, 'keygen.key');
  run('age-keygen', ['-o', idPath]);
  const text = await readFile(idPath, 'utf8');
  const identities = parseIdentityFile(text);
  const recipient = run('age-keygen', ['-y', idPath]).toString().trim();
  const keyLine = text.split('\n').find((l) => l.startsWith('AGE-SECRET-KEY-1'))!;
  assert.equal(identityToRecipient(keyLine), recipient);
  for (const size of sizes) {
    const plain = randomBytes(size);
    assert.ok(decrypt(run('age', ['-r', recipient], plain), identities).equals(plain), `size ${size}`);
    assert.ok(decrypt(decodeArmor(run('age', ['-a', '-r', recipient], plain)), identities).equals(plain), `armored size ${size}`);
  }
});

test.skipIf(noAge)(`formatIdentityFile matches age-keygen output line for line${noAge ? ` [skipped: ${noAge}]` : ''}`, async () => {
  const idPath = join(dir, 'shape.key');
  run('age-keygen', ['-o', idPath]);
  const theirs = (await readFile(idPath, 'utf8')).split('\n');
  const ours = formatIdentityFile(generateX25519Identity().identity, new Date()).split('\n');
  // The time zone is Z or ±hh:mm on the created line only (a key may end in Z too).
  const shape = (l: string) => (l.startsWith('# created:') ? l.replace(/(Z|[+-]\d\d:\d\d)$/, '~') : l).replace(/[0-9A-Za-z]/g, 'x');
  assert.deepEqual(ours.map(shape), theirs.map(shape), `ours:\n${ours.join('\n')}\ntheirs:\n${theirs.join('\n')}`);
});

test('typage decrypts our files and we decrypt typage files', async () => {
  const theirIdentity = await generateIdentity();
  const theirRecipient = await typageRecipient(theirIdentity);
  const ours = generateX25519Identity();
  assert.equal(identityToRecipient(theirIdentity), theirRecipient);
  for (const size of sizes) {
    const plain = randomBytes(size);
    const d = new Decrypter();
    d.addIdentity(theirIdentity);
    const mine = encrypt(plain, [parseRecipient(theirRecipient)]);
    assert.ok(Buffer.from(await d.decrypt(mine)).equals(plain), `typage decrypts size ${size}`);
    const e = new Encrypter();
    e.addRecipient(ours.recipient);
    const theirs = Buffer.from(await e.encrypt(plain));
    assert.ok(decrypt(theirs, [parseIdentity(ours.identity)]).equals(plain), `we decrypt size ${size}`);
    assert.ok(decrypt(decodeArmor(Buffer.from(armor.encode(theirs))), [parseIdentity(ours.identity)]).equals(plain), `armored size ${size}`);
  }
});

test('passphrase files interoperate with typage', async () => {
  const plain = randomBytes(STREAM_CHUNK + 3);
  const e = new Encrypter();
  e.setPassphrase('tr0ub4dor');
  e.setScryptWorkFactor(12);
  const theirs = Buffer.from(await e.encrypt(plain));
  assert.ok(decrypt(theirs, [passphraseIdentity('tr0ub4dor')]).equals(plain));
  const d = new Decrypter();
  d.addPassphrase('tr0ub4dor');
  const mine = encrypt(plain, [passphraseRecipient('tr0ub4dor', 12)]);
  assert.ok(Buffer.from(await d.decrypt(mine)).equals(plain));
});

test('post-quantum hybrid files interoperate with typage', async () => {
  const theirIdentity = await typageHybridIdentity();
  const theirRecipient = await typageRecipient(theirIdentity);
  assert.equal(identityToRecipient(theirIdentity), theirRecipient);
  const ours = generateHybridIdentity();
  assert.equal(await typageRecipient(ours.identity), ours.recipient);
  const plain = randomBytes(STREAM_CHUNK + 17);
  const d = new Decrypter();
  d.addIdentity(theirIdentity);
  assert.ok(Buffer.from(await d.decrypt(encrypt(plain, [parseRecipient(theirRecipient)]))).equals(plain));
  const e = new Encrypter();
  e.addRecipient(ours.recipient);
  assert.ok(decrypt(Buffer.from(await e.encrypt(plain)), [parseIdentity(ours.identity)]).equals(plain));
});
