import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBrickpostError } from '@brickpost/engine/api';
import { resolveRecipients } from '../src/recipients.js';
import { packOptions, parseLevel } from '../src/pack-options.js';

const A = 'age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p';
const B = 'age1lggyhqrw2nlhcxprm67z43rta597azn8gknawjehu9d9dl0jq3yqqvfafg';

test('recipients from arguments and from age -R style files, de-duplicated', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'brickpost-cli-'));
  try {
    const file = join(dir, 'recipients.txt');
    await writeFile(file, `# team\n${B}\n\n  ${A}  \r\n`);
    assert.deepEqual(await resolveRecipients([A, file]), [A, B]);
    assert.deepEqual(await resolveRecipients([]), []);

    const bad = join(dir, 'bad.txt');
    await writeFile(bad, `${A}\nssh-ed25519 AAAA\n`);
    await assert.rejects(resolveRecipients([bad]), (e: unknown) => isBrickpostError(e, 'BAD_KEY') && /line 2/.test(e.message));
    await assert.rejects(resolveRecipients([join(dir, 'missing')]), (e: unknown) => isBrickpostError(e, 'USAGE') && e.exitCode === 2);
    await assert.rejects(resolveRecipients(['age1NOTVALID']), (e: unknown) => isBrickpostError(e, 'BAD_KEY'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--level accepts 1..19 only', () => {
  assert.equal(parseLevel(undefined), undefined);
  assert.equal(parseLevel('3'), 3);
  assert.equal(parseLevel('19'), 19);
  for (const bad of ['0', '20', '-1', '3.5', 'x', '']) {
    assert.throws(
      () => parseLevel(bad),
      (e: unknown) => isBrickpostError(e, 'USAGE'),
      bad,
    );
  }
});

test('pack options: self rule and pass-through', async () => {
  const inv = (values: Record<string, string | boolean | string[]>) => ({ values, positionals: ['/src'] });
  assert.deepEqual(await packOptions(inv({ to: ['/d'], label: 'L', level: '5' })), {
    source: '/src',
    drives: ['/d'],
    recipients: [],
    noSelf: false,
    label: 'L',
    level: 5,
  });
  await assert.rejects(packOptions(inv({ to: ['/d'], 'no-self': true })), (e: unknown) => isBrickpostError(e, 'USAGE') && /--no-self/.test(e.message));
  const o = await packOptions(inv({ to: ['/d'], 'no-self': true, recipient: [A], dataset: 'ds' }));
  assert.deepEqual(o.recipients, [A]);
  assert.equal(o.dataset, 'ds');
});

test('recipients by trusted name or key id; a file of the same name wins; the store is read only when needed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'brickpost-cli-'));
  try {
    let reads = 0;
    const store = async () => (
      reads++,
      [
        { name: 'lab', keyId: '0123456789ABCDEF', minisignPublicKey: 'RW…', recipient: B, addedAt: '', self: false },
        { name: 'bare', keyId: 'FEDCBA9876543210', minisignPublicKey: 'RW…', recipient: null, addedAt: '', self: false },
      ]
    );
    assert.deepEqual(await resolveRecipients([A], 'pack', store), [A]);
    assert.equal(reads, 0);
    assert.deepEqual(await resolveRecipients(['lab', '0123456789abcdef', A], 'pack', store), [B, A]);
    assert.equal(reads, 1, 'read once for all values');
    const file = join(dir, 'lab');
    await writeFile(file, `${A}\n`);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      assert.deepEqual(await resolveRecipients(['lab'], 'pack', store), [A], 'the file ./lab, not the trusted lab');
    } finally {
      process.chdir(cwd);
    }
    await assert.rejects(
      resolveRecipients(['bare'], 'pack', store),
      (e: unknown) => isBrickpostError(e, 'USAGE') && /has no recipient recorded/.test(e.message) && /trust add/.test(e.hint ?? ''),
    );
    await assert.rejects(
      resolveRecipients(['nobody'], 'pack', store),
      (e: unknown) => isBrickpostError(e, 'USAGE') && /nor the name of a trusted key/.test(e.message),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
