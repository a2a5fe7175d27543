/**
 * Trusted keys with recipients at the engine level: the contact texts
 * parseContact reads (and the ones it refuses), and the trust store over a
 * real catalog in temporary homes: adding, updating, the own entry's
 * recipient (also for a home whose catalog predates the column's filling),
 * and a pack encrypted to a trusted party's recipient that only that party
 * (and the publisher) can ingest.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { isBrickpostError } from '@brickpost/manifest';
import { Engine } from '../src/engine.js';
import { parseContact } from '../src/keys/index.js';

const quiet = (): void => undefined;
const badKey = (e: unknown): boolean => isBrickpostError(e, 'BAD_KEY');

describe('trusted keys with recipients', () => {
  const root = mkdtempSync(join(tmpdir(), 'bp-trust-recipient-'));
  let pub: Engine;
  let sub: Engine;
  let other: Engine;
  let subWho: ReturnType<Engine['whoami']>;
  let otherWho: ReturnType<Engine['whoami']>;
  /** What `brickpost whoami` prints for the subscriber. */
  let whoamiText = '';

  beforeAll(() => {
    pub = Engine.open({ home: join(root, 'pub') });
    sub = Engine.open({ home: join(root, 'sub') });
    other = Engine.open({ home: join(root, 'other') });
    pub.keygen({ name: 'survey-lab' });
    subWho = sub.keygen({ name: 'field-station' });
    otherWho = other.keygen({ name: 'someone else' });
    whoamiText = [
      ['name', subWho.name],
      ['recipient', subWho.recipient],
      ['public key', subWho.minisignPublicKey],
      ['key id', subWho.keyId],
      ['identity file', subWho.identityFile],
    ]
      .map(([k, v]) => `${k!.padEnd(16)}${v}`)
      .join('\n');
  });
  afterAll(() => {
    for (const e of [pub, sub, other]) e?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('contact texts: a key line, a .pub file, a .pub file with a recipient line, whoami output, quoted words', () => {
    const pubFile = readFileSync(subWho.minisignPublicKeyFile, 'utf8');
    assert.deepEqual(parseContact(subWho.minisignPublicKey), { publicKey: subWho.minisignPublicKey, recipient: null, name: null });
    assert.deepEqual(parseContact(pubFile), { publicKey: subWho.minisignPublicKey, recipient: null, name: null });
    assert.deepEqual(parseContact(`${pubFile}${subWho.recipient}\n`), { publicKey: subWho.minisignPublicKey, recipient: subWho.recipient, name: null });
    assert.deepEqual(parseContact(whoamiText.replace(/\n/g, '\r\n')), {
      publicKey: subWho.minisignPublicKey,
      recipient: subWho.recipient,
      name: 'field-station',
    });
    assert.deepEqual(parseContact(`signing key: "${subWho.minisignPublicKey}", recipient: <${subWho.recipient}>.`).recipient, subWho.recipient);
  });

  test('contact texts refused: no key, two keys, two recipients, a malformed recipient, a secret key, too long', () => {
    assert.throws(
      () => parseContact('hello there'),
      (e: unknown) => badKey(e) && /no minisign public key .*"hello there"/.test((e as Error).message),
    );
    assert.throws(
      () => parseContact(`${subWho.minisignPublicKey}\n${otherWho.minisignPublicKey}`),
      (e: unknown) => badKey(e) && /2 different minisign public keys/.test((e as Error).message),
    );
    assert.throws(
      () => parseContact(`${subWho.minisignPublicKey} ${subWho.recipient} ${otherWho.recipient}`),
      (e: unknown) => badKey(e) && /2 different age recipients/.test((e as Error).message),
    );
    const flipped = subWho.recipient.slice(0, -1) + (subWho.recipient.endsWith('q') ? 'p' : 'q');
    assert.throws(() => parseContact(`${subWho.minisignPublicKey} ${flipped}`), badKey, 'a recipient with a bad checksum');
    const otherPub = readFileSync(otherWho.minisignPublicKeyFile, 'utf8').split('\n')[0]!;
    assert.throws(
      () => parseContact(`${otherPub}\n${subWho.minisignPublicKey}\n${subWho.recipient}\n`),
      (e: unknown) => badKey(e) && /comment says key id/.test((e as Error).message),
    );
    assert.throws(
      () => parseContact(`${whoamiText}\nAGE-SECRET-KEY-1QQQQ`),
      (e: unknown) => badKey(e) && /secret key/.test((e as Error).message),
    );
    assert.throws(
      () => parseContact(`${whoamiText}\n${'#'.repeat(20_000)}`),
      (e: unknown) => badKey(e) && /too long/.test((e as Error).message),
    );
  });

  test("the own entry carries the home's recipient, also in a catalog where it was never filled", () => {
    const me = pub.trustList().find((k) => k.self)!;
    assert.equal(me.recipient, pub.whoami().recipient);
    const db = new Database(join(pub.home, 'catalog.sqlite'));
    db.prepare('UPDATE trust SET recipient = NULL').run();
    db.close();
    assert.equal(pub.trustList().find((k) => k.self)!.recipient, pub.whoami().recipient);
  });

  test('add from whoami text, then update: a name or recipient left out is kept, one given replaces it', () => {
    const added = pub.trustAdd(whoamiText);
    assert.deepEqual([added.name, added.keyId, added.recipient, added.self], ['field-station', subWho.keyId, subWho.recipient, false]);
    const renamed = pub.trustAdd(subWho.minisignPublicKey, 'station-7');
    assert.deepEqual([renamed.name, renamed.recipient], ['station-7', subWho.recipient], 'the bare key keeps the recipient');
    const moved = pub.trustAdd(subWho.minisignPublicKey, undefined, otherWho.recipient);
    assert.deepEqual([moved.name, moved.recipient], ['station-7', otherWho.recipient], 'the name is kept, the recipient replaced');
    assert.throws(
      () => pub.trustAdd(whoamiText, undefined, otherWho.recipient),
      (e: unknown) => badKey(e) && /holds recipient/.test((e as Error).message),
    );
    assert.throws(() => pub.trustAdd(subWho.minisignPublicKey, undefined, 'age1notarecipient'), badKey);
    assert.throws(() => pub.trustAdd(subWho.minisignPublicKey, undefined, subWho.minisignPublicKey), badKey);
    assert.equal(pub.trustAdd(whoamiText).recipient, subWho.recipient, 'the pasted text sets it back');
    assert.equal(pub.trustList().filter((k) => k.keyId === subWho.keyId).length, 1);
  });

  test("a name suggested by the text is not taken from another key; it falls back to the key id's", () => {
    assert.equal(pub.trustAdd(subWho.minisignPublicKey, 'field-station').name, 'field-station');
    const text = whoamiText.replace(subWho.minisignPublicKey, otherWho.minisignPublicKey).replace(subWho.recipient, otherWho.recipient);
    const k = pub.trustAdd(text);
    assert.equal(k.name, `key-${otherWho.keyId.slice(0, 8).toLowerCase()}`);
    assert.equal(k.recipient, otherWho.recipient);
  });

  test("a pack to the trusted party's recipient ingests for them and not for another home", async () => {
    const src = join(root, 'src');
    const drive = join(root, 'drive');
    mkdirSync(src);
    mkdirSync(drive);
    writeFileSync(join(src, 'a.txt'), 'observations\n');
    const recipient = pub.trustList().find((k) => k.keyId === subWho.keyId)!.recipient!;
    await pub.pack({ source: src, drives: [drive], recipients: [recipient], dataset: 'obs' }, quiet);
    const pubKey = pub.whoami().minisignPublicKey;
    sub.trustAdd(pubKey, 'survey-lab');
    other.trustAdd(pubKey, 'survey-lab');
    await sub.ingest({ drive, dest: join(root, 'dest') }, quiet);
    assert.equal(readFileSync(join(root, 'dest', 'a.txt'), 'utf8'), 'observations\n');
    await assert.rejects(other.ingest({ drive, dest: join(root, 'dest-other') }, quiet), (e: unknown) => isBrickpostError(e, 'NO_MATCHING_KEY'));
  });

  test('keygen --force: the replaced key stays trusted, without its recipient (its secret key is gone)', () => {
    const home = Engine.open({ home: join(root, 'regen') });
    try {
      const first = home.keygen({ name: 'lab' });
      const second = home.keygen({ name: 'lab', force: true });
      const keys = home.trustList();
      const old = keys.find((k) => k.keyId === first.keyId)!;
      const now = keys.find((k) => k.keyId === second.keyId)!;
      assert.deepEqual([old.self, old.recipient], [false, null]);
      assert.deepEqual([now.self, now.recipient], [true, second.recipient]);
    } finally {
      home.close();
    }
  });
});
