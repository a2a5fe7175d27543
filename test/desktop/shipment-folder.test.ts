/**
 * Browsing a shipment and taking entries off it through the desktop host,
 * as the renderer calls them: `shipmentFolder` lists the direct children of
 * one folder (links with their targets, names as the manifest holds them),
 * caps a large folder and counts the rest, refuses a file, a missing folder
 * and '..'; the `extract` job writes exactly the entries named and refuses
 * arguments of the wrong type.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '@brickpost/engine';
import type { ListEntry } from '@brickpost/engine/api';
import { DesktopHost, shipmentFolder } from '@brickpost/desktop/host';
import { brickpost, publisherAndSubscriber, tempDir } from '../support.js';

const names = (entries: ListEntry[]): string[] => entries.map((e) => e.path);

test('shipmentFolder lists one folder, capped; the extract job takes what is named', async () => {
  const root = tempDir('bp-host-browse-');
  const [pub, sub, src, drive] = ['pub', 'sub', 'src', 'drive'].map((n) => join(root, n)) as [string, string, string, string];
  mkdirSync(join(src, 'docs', 'deep'), { recursive: true });
  mkdirSync(join(src, 'many'));
  mkdirSync(drive);
  writeFileSync(join(src, 'docs', 'a.txt'), 'alpha\n');
  writeFileSync(join(src, 'docs', 'b.txt'), 'beta\n');
  writeFileSync(join(src, 'docs', 'deep', 'c.txt'), 'gamma\n');
  writeFileSync(join(src, 'bell\u0007.txt'), 'ding\n');
  symlinkSync('docs/a.txt', join(src, 'to-a'));
  for (let i = 0; i < 7; i++) writeFileSync(join(src, 'many', `f${i}`), `${i}\n`);
  const recipient = publisherAndSubscriber(pub, sub);
  const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'browse']);
  assert.equal(p.code, 0, p.stderr);

  const engine = Engine.open({ home: sub });
  try {
    const top = await shipmentFolder(engine, { drive, folder: '' });
    assert.deepEqual(names(top.entries).sort(), ['bell\u0007.txt', 'docs', 'many', 'to-a']);
    const link = top.entries.find((e) => e.path === 'to-a');
    assert.equal(link?.type, 'link');
    assert.equal(link?.target, 'docs/a.txt');
    assert.deepEqual([top.more, top.note], [0, null]);

    const docs = await shipmentFolder(engine, { drive, folder: '/docs/' });
    assert.equal(docs.folder, 'docs');
    assert.deepEqual(names(docs.entries), ['docs/a.txt', 'docs/b.txt', 'docs/deep']);
    assert.equal(docs.entries[0]?.size, 6);
    assert.deepEqual(names((await shipmentFolder(engine, { drive, folder: 'docs/deep' })).entries), ['docs/deep/c.txt']);

    const capped = await shipmentFolder(engine, { drive, folder: 'many' }, 3);
    assert.deepEqual([capped.entries.length, capped.limit, capped.more], [3, 3, 4]);
    assert.match(capped.note ?? '', /holds 7 entries; the first 3 are listed/);

    const refused = async (folder: string): Promise<string | undefined> =>
      shipmentFolder(engine, { drive, folder }).then(
        () => undefined,
        (e: { code?: string }) => e.code,
      );
    assert.equal(await refused('docs/a.txt'), 'USAGE');
    assert.equal(await refused('to-a'), 'USAGE', 'a link is not followed');
    assert.equal(await refused('nothing'), 'NOT_FOUND');
    assert.equal(await refused('docs/../many'), 'USAGE');
  } finally {
    engine.close();
  }

  const host = new DesktopHost({ home: sub });
  try {
    const viaHost = (await host.call('shipmentFolder', [{ drive, folder: 'docs' }])) as { entries: ListEntry[] };
    assert.deepEqual(names(viaHost.entries), ['docs/a.txt', 'docs/b.txt', 'docs/deep']);
    const noFolder = await host.call('shipmentFolder', [{ drive }]).then(
      () => null,
      (e: { code?: string }) => e.code,
    );
    assert.equal(noFolder, 'USAGE');

    const to = join(root, 'taken');
    const events: string[] = [];
    const s = (await host.job('x1', 'extract', [{ drive, paths: ['docs/deep', 'bell\u0007.txt', 'to-a'], to }], (e) => events.push(e.type))) as Record<
      string,
      unknown
    >;
    assert.deepEqual([s.files, s.links], [2, 1]);
    assert.deepEqual(readdirSync(to).sort(), ['bell\u0007.txt', 'docs', 'to-a']);
    assert.deepEqual(readdirSync(join(to, 'docs')), ['deep']);
    assert.equal(readFileSync(join(to, 'docs', 'deep', 'c.txt'), 'utf8'), 'gamma\n');
    assert.equal(readlinkSync(join(to, 'to-a')), 'docs/a.txt');
    assert.ok(events.includes('progress'));

    const badPaths = await host
      .job('x2', 'extract', [{ drive, paths: 'docs', to }], () => undefined)
      .then(
        () => null,
        (e: { code?: string }) => e.code,
      );
    assert.equal(badPaths, 'USAGE');
    const badFlag = await host
      .job('x3', 'extract', [{ drive, paths: [], to, owners: 'yes' }], () => undefined)
      .then(
        () => null,
        (e: { code?: string }) => e.code,
      );
    assert.equal(badFlag, 'USAGE');
  } finally {
    await host.close();
  }
});
