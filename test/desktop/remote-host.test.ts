/**
 * The engine in a child process (RemoteHost), as the Electron main process
 * runs it: a real Node child with the same host module, calls and events
 * relayed as JSON; errors keep their code and hint; closing ends the child.
 * Started here with this Node (the main process uses $BRICKPOST_NODE or
 * `node` on PATH).
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RemoteHost } from '@brickpost/desktop/host';
import { tempDir } from '../support.js';

test('RemoteHost relays calls, job events and errors to an engine in a Node child process', async () => {
  const root = tempDir('bp-remote-');
  const home = join(root, 'home');
  const host = await RemoteHost.start({ home, nodePath: process.execPath });
  try {
    assert.equal(host.home, home);
    assert.equal(await host.call('whoami', []), null);
    const who = (await host.call('keygen', [{ name: 'remote' }])) as { keyId: string; home: string };
    assert.equal(who.home, home);
    const trusted = (await host.call('trustList', [])) as Array<{ keyId: string }>;
    assert.deepEqual(
      trusted.map((k) => k.keyId),
      [who.keyId],
    );

    const again = await host.call('keygen', [{ name: 'remote' }]).then(
      () => null,
      (e: unknown) => e as Record<string, unknown>,
    );
    assert.ok(again instanceof Error);
    assert.equal(again.name, 'BrickpostError');
    assert.equal(again.code, 'IDENTITY_EXISTS');
    assert.equal(again.exitCode, 2);
    assert.equal(typeof again.hint, 'string');

    const src = join(root, 'src');
    const drive = join(root, 'drive');
    mkdirSync(src);
    mkdirSync(drive);
    writeFileSync(join(src, 'a.txt'), 'remote host\n'.repeat(5000));
    const events: Array<{ type: string }> = [];
    const packed = (await host.job('p1', 'pack', [{ source: src, drives: [drive], recipients: [] }], (e) => events.push(e))) as {
      files: number;
      shipmentId: string;
    };
    assert.equal(packed.files, 1);
    assert.ok(
      events.some((e) => e.type === 'progress'),
      'progress events crossed the process boundary',
    );
    const verified = (await host.job('v1', 'verify', [{ drive }], () => undefined)) as { ok: boolean; shipmentId: string };
    assert.equal(verified.ok, true);
    assert.equal(verified.shipmentId, packed.shipmentId);
  } finally {
    await host.close();
  }
  const afterClose = await host.call('whoami', []).then(
    () => null,
    (e: unknown) => e as Record<string, unknown>,
  );
  assert.equal(afterClose?.code, 'IO', 'calls after close fail: the child has exited');
});

test('RemoteHost says which Node it could not find', async () => {
  const err = await RemoteHost.start({ home: tempDir('bp-remote-'), nodePath: '/nonexistent/node' }).then(
    () => null,
    (e: unknown) => e as Record<string, unknown>,
  );
  assert.equal(err?.code, 'DEPENDENCY');
  assert.match(String(err?.message), /\/nonexistent\/node/);
  assert.match(String(err?.hint), /BRICKPOST_NODE/);
});
