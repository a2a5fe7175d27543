/**
 * Recipients in the trust store through the real CLI: the publisher trusts
 * a subscriber from the text `brickpost whoami` prints (a file, or standard
 * input), sees the recipient in `trust list`, updates it, is refused a bad
 * one; `pack --recipient NAME` encrypts to the trusted recipient and the
 * subscriber ingests it; a name with no recipient, or no such name, is a
 * usage error saying what to do. A subscriber trusted by its key alone gets
 * its recipient recorded when the publisher imports a receipt it signed.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, lastEvent, makeDataset, snapshot, tempDir, type Run } from '../support.js';

const json = (r: Run): any => {
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
};

describe('trust store recipients', () => {
  const root = tempDir('bp-trust-rcpt-');
  const src = join(root, 'src');
  const [pub, sub, sub2] = ['pub', 'sub', 'sub2'].map((h) => join(root, h)) as [string, string, string];
  let subId: Record<string, string> = {};
  let sub2Id: Record<string, string> = {};

  beforeAll(() => {
    makeDataset(src, '1M', 3);
    for (const [h, name] of [
      [pub, 'survey-lab'],
      [sub, 'field-station'],
      [sub2, 'archive'],
    ] as const)
      assert.equal(brickpost(h, ['keygen', '--name', name]).code, 0);
    subId = json(brickpost(sub, ['whoami', '--json']));
    sub2Id = json(brickpost(sub2, ['whoami', '--json']));
    const pubKey = json(brickpost(pub, ['whoami', '--json'])).minisignPublicKey;
    for (const h of [sub, sub2]) assert.equal(brickpost(h, ['trust', 'add', pubKey, '--name', 'survey-lab']).code, 0);
  });

  test("trust add reads whoami's text from a file, records the recipient, and trust list shows it", () => {
    const contact = join(root, 'field-station.txt');
    const card = brickpost(sub, ['whoami', '--contact']).stdout;
    assert.ok(!card.includes(sub), 'whoami --contact shows no local path');
    assert.deepEqual(
      card
        .trim()
        .split('\n')
        .map((l) => l.split(/\s{2,}/)[0]),
      ['name', 'recipient', 'public key', 'key id'],
    );
    assert.deepEqual(Object.keys(json(brickpost(sub, ['whoami', '--contact', '--json']))), ['name', 'recipient', 'minisignPublicKey', 'keyId']);
    writeFileSync(contact, card);
    const added = json(brickpost(pub, ['trust', 'add', contact, '--json']));
    assert.deepEqual([added.name, added.keyId, added.recipient, added.self], ['field-station', subId.keyId, subId.recipient, false]);
    const keys = json(brickpost(pub, ['trust', 'list', '--json']));
    assert.equal(keys[0].self, true);
    assert.equal(keys[0].recipient, json(brickpost(pub, ['whoami', '--json'])).recipient, 'the own entry carries the own recipient');
    const text = brickpost(pub, ['trust', 'list']);
    assert.match(text.stdout, /^KEY ID\s+NAME\s+RECIPIENT\s+ADDED$/m);
    assert.match(text.stdout, new RegExp(`^${subId.keyId}  field-station\\s+${subId.recipient!.slice(0, 12)}…${subId.recipient!.slice(-8)}  `, 'm'));
  });

  test('trust add - reads standard input; a key given again updates the recipient and keeps the name', () => {
    const piped = brickpost(pub, ['trust', 'add', '-', '--json'], { input: brickpost(sub, ['whoami']).stdout });
    assert.equal(json(piped).recipient, subId.recipient);
    const moved = json(brickpost(pub, ['trust', 'add', subId.minisignPublicKey!, '--recipient', sub2Id.recipient!, '--json']));
    assert.deepEqual([moved.name, moved.recipient], ['field-station', sub2Id.recipient]);
    const back = brickpost(pub, ['trust', 'add', subId.minisignPublicKey!, '--recipient', subId.recipient!]);
    assert.equal(back.code, 0, back.stderr);
    assert.match(back.stdout, new RegExp(`trusted field-station \\(key id ${subId.keyId}\\), recipient ${subId.recipient}`));
  });

  test('a malformed recipient or a text with two keys is refused (BAD_KEY, exit 2) and changes nothing', () => {
    const before = brickpost(pub, ['trust', 'list', '--json']).stdout;
    const bad = brickpost(pub, [
      'trust',
      'add',
      subId.minisignPublicKey!,
      '--recipient',
      `${subId.recipient!.slice(0, -1)}${subId.recipient!.endsWith('x') ? 'y' : 'x'}`,
      '--json',
    ]);
    assert.equal(bad.code, 2);
    assert.equal(lastEvent(bad).code, 'BAD_KEY');
    const two = brickpost(pub, ['trust', 'add', '-', '--json'], { input: `${subId.minisignPublicKey}\n${sub2Id.minisignPublicKey}\n` });
    assert.equal(two.code, 2);
    assert.match(lastEvent(two).message, /2 different minisign public keys/);
    assert.equal(brickpost(pub, ['trust', 'list', '--json']).stdout, before);
  });

  test('pack --recipient NAME encrypts to the trusted recipient; the subscriber ingests it', () => {
    const drive = join(root, 'drive');
    mkdirSync(drive);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', 'field-station', '--dataset', 'survey']);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stderr, /encrypted to 2 recipients/);
    const i = brickpost(sub, ['ingest', drive, join(root, 'dest')]);
    assert.equal(i.code, 0, i.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(join(root, 'dest'))), []);
    const refused = brickpost(sub2, ['ingest', drive, join(root, 'dest2')]);
    assert.notEqual(refused.code, 0, 'a home the shipment was not encrypted to cannot ingest it');
  });

  test('a trusted name without a recipient, or no such name, is a usage error with what to do', () => {
    assert.equal(json(brickpost(pub, ['trust', 'add', sub2Id.minisignPublicKey!, '--name', 'archive', '--json'])).recipient, null);
    const none = brickpost(pub, ['pack', src, '--to', join(root, 'unused'), '--recipient', 'archive']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, new RegExp(`error: trusted key "archive" \\(key id ${sub2Id.keyId}\\) has no recipient recorded`));
    assert.match(none.stderr, new RegExp(`hint: record it with 'brickpost trust add ${sub2Id.minisignPublicKey!.replace(/[+/]/g, '\\$&')} --recipient age1…'`));
    const unknown = brickpost(pub, ['pack', src, '--to', join(root, 'unused'), '--recipient', 'nobody']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--recipient "nobody" is neither an age recipient \(age1…\), a file, nor the name of a trusted key/);
  });

  test('receipt import records the recipient of a subscriber trusted by key alone, from its signed receipt', () => {
    const drive = join(root, 'drive2');
    mkdirSync(drive);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', sub2Id.recipient!, '--dataset', 'archive-copy']);
    assert.equal(p.code, 0, p.stderr);
    const dest = join(root, 'dest-archive');
    assert.equal(brickpost(sub2, ['ingest', drive, dest]).code, 0);
    const receipt = join(root, 'archive-receipt.json');
    const r = brickpost(sub2, ['receipt', dest, '--out', receipt]);
    assert.equal(r.code, 0, r.stderr);
    const imported = brickpost(pub, ['receipt', 'import', receipt]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /recorded the recipient of archive from the receipt: 'pack --recipient archive' encrypts to it/);
    const entry = json(brickpost(pub, ['trust', 'list', '--json'])).find((k: any) => k.keyId === sub2Id.keyId);
    assert.equal(entry.recipient, sub2Id.recipient);
    assert.equal(json(brickpost(pub, ['receipt', 'import', receipt, '--json'])).recipientRecorded, false, 'recorded once');
    mkdirSync(join(root, 'drive3'));
    assert.equal(
      brickpost(pub, ['pack', src, '--to', join(root, 'drive3'), '--recipient', sub2Id.keyId!.toLowerCase(), '--dataset', 'archive-copy']).code,
      0,
      'now packs by key id',
    );
  });
});
