import { test } from 'node:test';
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
    assert.throws(() => parseLevel(bad), (e: unknown) => isBrickpostError(e, 'USAGE'), bad);
  }
});

test('pack options: self rule and pass-through', async () => {
  const inv = (values: Record<string, string | boolean | string[]>) => ({ values, positionals: ['/src'] });
  assert.deepEqual(await packOptions(inv({ to: ['/d'], label: 'L', level: '5' })), {
    source: '/src', drives: ['/d'], recipients: [], noSelf: false, label: 'L', level: 5,
  });
  await assert.rejects(packOptions(inv({ to: ['/d'], 'no-self': true })), (e: unknown) => isBrickpostError(e, 'USAGE') && /--no-self/.test(e.message));
  const o = await packOptions(inv({ to: ['/d'], 'no-self': true, recipient: [A], dataset: 'ds' }));
  assert.deepEqual(o.recipients, [A]);
  assert.equal(o.dataset, 'ds');
});
