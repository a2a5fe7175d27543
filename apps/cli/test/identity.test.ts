import { test, type TestContext } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brickpost, json, show } from './transcript.js';

const minisignInstalled = spawnSync('minisign', ['-v']).status === 0;

async function tempHome(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'brickpost-cli-home-'));
  t.onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('whoami before keygen: NO_IDENTITY, exit 2', async (t) => {
  const home = await tempHome(t);
  const r = brickpost(['whoami', '--home', home]);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /^brickpost: error: /m);
  const j = brickpost(['--json', 'whoami', '--home', home]);
  assert.equal(j.code, 2, show(j));
  const ev = json(j);
  assert.equal(ev.type, 'error');
  assert.equal(ev.code, 'NO_IDENTITY');
  assert.equal(ev.exitCode, 2);
});

test('keygen, keygen again (IDENTITY_EXISTS, exit 2), keygen --force', async (t) => {
  const home = await tempHome(t);
  const first = brickpost(['keygen', '--home', home, '--name', 'alice']);
  assert.equal(first.code, 0, show(first));
  assert.match(first.stdout, /^recipient +age1/m);
  assert.match(first.stdout, /^public key +RW/m);

  const again = brickpost(['keygen', '--home', home]);
  assert.equal(again.code, 2, show(again));
  assert.equal(again.stdout, '');
  assert.match(again.stderr, /^brickpost: error: .+/m);
  assert.match(again.stderr, /^brickpost: hint: .+/m);

  const againJson = brickpost(['keygen', '--home', home, '--json']);
  assert.equal(againJson.code, 2, show(againJson));
  assert.equal(json(againJson).code, 'IDENTITY_EXISTS');

  const before = json(brickpost(['whoami', '--home', home, '--json']));
  const forced = brickpost(['keygen', '--home', home, '--force', '--json', '--name', 'alice2']);
  assert.equal(forced.code, 0, show(forced));
  const after = json(forced);
  assert.notEqual(after.keyId, before.keyId);
  assert.notEqual(after.recipient, before.recipient);
  assert.equal(after.name, 'alice2');
  assert.deepEqual(json(brickpost(['whoami', '--home', home, '--json'])), after);
});

test('whoami --json fields; BRICKPOST_HOME works like --home', async (t) => {
  const home = await tempHome(t);
  assert.equal(brickpost(['keygen', '--name', 'bob'], { BRICKPOST_HOME: home }).code, 0);
  const r = brickpost(['whoami', '--json', '--home', home]);
  assert.equal(r.code, 0, show(r));
  const w = json(r);
  assert.deepEqual(Object.keys(w).sort(), ['home', 'identityFile', 'keyId', 'minisignPublicKey', 'minisignPublicKeyFile', 'name', 'recipient']);
  assert.match(w.recipient, /^age1[02-9ac-hj-np-z]{58}$/);
  assert.match(w.minisignPublicKey, /^RW[A-Za-z0-9+/]{54}$/);
  assert.match(w.keyId, /^[0-9A-F]{16}$/);
  assert.equal(w.name, 'bob');
  assert.equal(resolve(w.home), resolve(home));
  assert.deepEqual(json(brickpost(['--json', 'whoami'], { BRICKPOST_HOME: home })), w);

  const text = brickpost(['whoami', '--home', home]);
  assert.equal(text.code, 0, show(text));
  assert.ok(text.stdout.includes(w.recipient) && text.stdout.includes(w.minisignPublicKey) && text.stdout.includes(w.keyId));
});

test('trust add (key and file), list, remove round trip with --json', async (t) => {
  const publisherHome = await tempHome(t);
  const home = await tempHome(t);
  assert.equal(brickpost(['keygen', '--home', publisherHome, '--name', 'lab']).code, 0);
  assert.equal(brickpost(['keygen', '--home', home, '--name', 'me']).code, 0);
  const publisher = json(brickpost(['whoami', '--json', '--home', publisherHome]));
  const me = json(brickpost(['whoami', '--json', '--home', home]));

  const added = brickpost(['trust', 'add', publisher.minisignPublicKey, '--name', 'lab', '--json', '--home', home]);
  assert.equal(added.code, 0, show(added));
  const key = json(added);
  assert.equal(key.keyId, publisher.keyId);
  assert.equal(key.name, 'lab');
  assert.equal(key.minisignPublicKey, publisher.minisignPublicKey);
  assert.equal(key.self, false);

  const listed = json(brickpost(['trust', 'list', '--json', '--home', home]));
  assert.ok(Array.isArray(listed));
  assert.ok(listed.some((k: { keyId: string }) => k.keyId === publisher.keyId));
  assert.ok(!listed.some((k: { keyId: string; self: boolean }) => k.keyId === me.keyId && !k.self));

  const text = brickpost(['trust', 'list', '--home', home]);
  assert.equal(text.code, 0, show(text));
  assert.match(text.stdout, new RegExp(`^${publisher.keyId} +lab `, 'm'));

  const removed = brickpost(['trust', 'remove', 'lab', '--json', '--home', home]);
  assert.equal(removed.code, 0, show(removed));
  assert.equal(json(removed).keyId, publisher.keyId);
  const after = json(brickpost(['trust', 'list', '--json', '--home', home]));
  assert.ok(!after.some((k: { keyId: string }) => k.keyId === publisher.keyId));

  const fromFile = brickpost(['trust', 'add', publisher.minisignPublicKeyFile, '--home', home, '--json']);
  assert.equal(fromFile.code, 0, show(fromFile));
  assert.equal(json(fromFile).keyId, publisher.keyId);
  const byId = brickpost(['trust', 'remove', publisher.keyId, '--home', home]);
  assert.equal(byId.code, 0, show(byId));
  assert.match(byId.stdout, new RegExp(publisher.keyId));
});

test('trust: unknown key, malformed key and missing file are usage errors (exit 2)', async (t) => {
  const home = await tempHome(t);
  assert.equal(brickpost(['keygen', '--home', home]).code, 0);
  const unknown = brickpost(['trust', 'remove', 'nobody', '--home', home, '--json']);
  assert.equal(unknown.code, 2, show(unknown));
  assert.equal(json(unknown).code, 'NOT_FOUND');
  const bad = brickpost(['trust', 'add', 'RWnot-a-key', '--home', home, '--json']);
  assert.equal(bad.code, 2, show(bad));
  assert.equal(json(bad).code, 'BAD_KEY');
  const missing = brickpost(['trust', 'add', join(home, 'missing.pub'), '--home', home]);
  assert.equal(missing.code, 2, show(missing));
  assert.match(missing.stderr, /^brickpost: error: no such key file/m);
});

test.skipIf(!minisignInstalled)(
  `trust add reads a minisign .pub file made by the minisign tool${!minisignInstalled ? ` [skipped: minisign is not installed]` : ''}`,
  async (t) => {
    const home = await tempHome(t);
    assert.equal(brickpost(['keygen', '--home', home]).code, 0);
    const pub = join(home, 'tool.pub');
    const sec = join(home, 'tool.key');
    const g = spawnSync('minisign', ['-G', '-W', '-p', pub, '-s', sec], { encoding: 'utf8' });
    assert.equal(g.status, 0, g.stderr);
    const r = brickpost(['trust', 'add', pub, '--name', 'tool', '--home', home, '--json']);
    assert.equal(r.code, 0, show(r));
    assert.equal(json(r).name, 'tool');
    await writeFile(join(home, 'note.txt'), 'not a key\n');
    const notKey = brickpost(['trust', 'add', join(home, 'note.txt'), '--home', home]);
    assert.equal(notKey.code, 2, show(notKey));
  },
);
