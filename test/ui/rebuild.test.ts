/**
 * Rebuilding a lost drive by hand, in Chromium against the real
 * `brickpost ui` and engine: a courier's home (trusting the publisher's key, holding
 * no key the shipment is for) opens "Rebuild a lost drive" from the start
 * page, gives two drives of a 3-drive set and a new folder, and rebuilds
 * the lost one; the page says which drive it wrote from which, and the new
 * bag is byte for byte the lost one. A new drive that is not empty is
 * refused with the engine's sentence. Every control has a label.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Browser } from 'playwright-core';
import { brickpost, lastEvent, publisherAndSubscriber, tempDir } from '../support.js';
import { JOB_MS, launch, openApp, shot, skipReason, startUi, type Ui, unlabelled } from './harness.js';

const skip = skipReason();

function files(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; parentPath: string; name: string }>)
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe.skipIf(skip)(`rebuilding a lost drive in the desktop app${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const root = tempDir('bp-ui-rebuild-');
  const [pub, sub, courier, src] = ['pub', 'sub', 'courier', 'src'].map((n) => join(root, n)) as [string, string, string, string];
  const drives = [1, 2, 3].map((i) => join(root, 'set', `d${i}`));
  let browser: Browser;
  let ui: Ui;
  let id = '';

  beforeAll(async () => {
    mkdirSync(src);
    for (let i = 0; i < 20; i++) writeFileSync(join(src, `f${i}.txt`), `file ${i}\n`.repeat(5000 + i * 300));
    for (const d of drives) mkdirSync(d, { recursive: true });
    const recipient = publisherAndSubscriber(pub, sub);
    assert.equal(brickpost(courier, ['keygen', '--name', 'courier']).code, 0);
    const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(courier, ['trust', 'add', pk, '--name', 'publisher']).code, 0);
    const r = brickpost(pub, ['pack', src, ...drives.flatMap((d) => ['--to', d]), '--recipient', recipient, '--no-self', '--json']);
    assert.equal(r.code, 0, r.stderr);
    id = lastEvent(r).result.shipmentId;
    ui = await startUi(courier);
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
  });

  test('the lost drive is rebuilt from the two others, byte for byte', async () => {
    const { page, errors } = await openApp(browser, ui, '#/');
    await page.getByRole('link', { name: /Rebuild a lost drive/ }).click();
    await page.waitForSelector('[data-view="rebuild"]');
    assert.deepEqual(await unlabelled(page), []);
    const fresh = join(root, 'new');
    mkdirSync(fresh);
    writeFileSync(join(fresh, 'notes.txt'), 'not empty\n');
    await page.fill('input[name="from-1"]', drives[0]!);
    await page.fill('input[name="from-2"]', drives[2]!);
    await page.fill('input[name="to"]', fresh);
    await page.getByRole('button', { name: 'Rebuild', exact: true }).click();
    await page.getByText(/is not empty/).waitFor();
    await page.getByRole('button', { name: 'Back' }).click();

    const empty = join(root, 'new2');
    mkdirSync(empty);
    await page.fill('input[name="to"]', empty);
    await page.getByRole('button', { name: 'Rebuild', exact: true }).click();
    await page.getByText('Drive 2 of 3 (data) rebuilt and verified.').waitFor({ timeout: JOB_MS });
    assert.match(await page.locator('[data-view="rebuild"]').innerText(), /From drives\s+1, 3/);
    await shot(page, 'rebuild-done');
    const lost = join(drives[1]!, 'brickpost', id);
    const rebuilt = join(empty, 'brickpost', id);
    assert.deepEqual(files(rebuilt), files(lost));
    for (const f of files(lost)) assert.ok(readFileSync(join(lost, f)).equals(readFileSync(join(rebuilt, f))), `${f} differs`);
    assert.equal(brickpost(sub, ['verify', empty]).code, 0);
    assert.deepEqual(errors, []);
  });
});
