/**
 * The desktop host's trustAdd with recipients, as the renderer calls it:
 * contact text alone, a key with `recipient`, and a malformed recipient or
 * a recipient of the wrong type refused with the engine's code.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Engine } from '@brickpost/engine';
import { DesktopHost } from '@brickpost/desktop/host';
import { tempDir } from '../support.js';

test('DesktopHost.trustAdd records a recipient from contact text or from its recipient field', async () => {
  const root = tempDir('bp-host-trust-');
  const other = Engine.open({ home: join(root, 'other') });
  const them = other.keygen({ name: 'field-station' });
  other.close();
  const host = new DesktopHost({ home: join(root, 'home') });
  try {
    await host.call('keygen', [{ name: 'lab' }]);
    const contact = `name            field-station\nrecipient       ${them.recipient}\npublic key      ${them.minisignPublicKey}\n`;
    const added = (await host.call('trustAdd', [{ key: contact }])) as Record<string, unknown>;
    assert.deepEqual([added.name, added.keyId, added.recipient], ['field-station', them.keyId, them.recipient]);

    const cleared = (await host.call('trustAdd', [{ key: them.minisignPublicKey, name: 'station' }])) as Record<string, unknown>;
    assert.equal(cleared.recipient, them.recipient, 'a key alone keeps the recipient');
    const bad = await host.call('trustAdd', [{ key: them.minisignPublicKey, recipient: 'age1xyz' }]).then(
      () => null,
      (e: unknown) => e as Record<string, unknown>,
    );
    assert.equal(bad?.code, 'BAD_KEY');
    const notString = await host.call('trustAdd', [{ key: them.minisignPublicKey, recipient: 42 }]).then(
      () => null,
      (e: unknown) => e as Record<string, unknown>,
    );
    assert.equal(notString?.code, 'USAGE');
    const list = (await host.call('trustList', [])) as Array<Record<string, unknown>>;
    assert.deepEqual(
      list.map((k) => [k.name, k.self, typeof k.recipient]),
      [
        ['lab', true, 'string'],
        ['station', false, 'string'],
      ],
    );
  } finally {
    await host.close();
  }
});
