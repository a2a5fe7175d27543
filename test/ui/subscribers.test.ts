/**
 * The subscribers view in Chromium against the real `brickpost ui` and
 * engine, set up through the CLI: a publisher packs two shipments for two
 * subscribers and imports a receipt from one of them. The view shows each
 * subscriber's lag, flags those past the maximum given (in shipments, and
 * in days at an "as of" time taken from the shipments' own dates), and
 * where each drive is; the subscriber's history view says how far behind
 * the newest shipment seen (verified, not ingested) its destination is.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { brickpost, lastEvent, makeDataset, tempDir, type Run } from '../support.js';
import { launch, openApp, shot, skipReason, startUi, unlabelled, type Ui } from './harness.js';

const skip = skipReason();

describe.skipIf(skip)(`subscribers view${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const root = tempDir('bp-ui-');
  const src = join(root, 'src');
  const [d1, d2] = [join(root, 'd1'), join(root, 'd2')];
  const destA = join(root, 'destA');
  const pub = join(root, 'pub');
  const [subA, subB] = [join(root, 'station-a'), join(root, 'station-b')];
  let browser: Browser;
  let firstCreated = '';
  let second: Record<string, any> = {};
  const servers: Ui[] = [];
  const ok = (r: Run): Run => (assert.equal(r.code, 0, r.stdout + r.stderr), r);

  beforeAll(async () => {
    makeDataset(src, '1M', 3);
    mkdirSync(d1);
    mkdirSync(d2);
    ok(brickpost(pub, ['keygen', '--name', 'survey-lab']));
    const p = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout);
    for (const [h, n] of [
      [subA, 'station-a'],
      [subB, 'station-b'],
    ] as const) {
      ok(brickpost(h, ['keygen', '--name', n]));
      ok(brickpost(h, ['trust', 'add', p.minisignPublicKey, '--name', 'survey-lab']));
      const me = JSON.parse(brickpost(h, ['whoami', '--json']).stdout);
      ok(brickpost(pub, ['trust', 'add', me.minisignPublicKey, '--name', n, '--recipient', me.recipient]));
    }
    const pack = (d: string): Record<string, any> =>
      lastEvent(ok(brickpost(pub, ['pack', src, '--to', d, '--recipient', 'station-a', '--recipient', 'station-b', '--dataset', 'survey', '--json']))).result;
    pack(d1);
    ok(brickpost(subA, ['ingest', d1, destA]));
    ok(brickpost(subA, ['receipt', destA, '--out', join(root, 'a.receipt')]));
    ok(brickpost(pub, ['receipt', 'import', join(root, 'a.receipt')]));
    appendFileSync(join(src, 'new.txt'), 'month two\n');
    second = pack(d2);
    ok(brickpost(pub, ['drive', 'shipped', second.shipmentId, '--at', '2026-11-20T09:00:00Z']));
    firstCreated = JSON.parse(brickpost(pub, ['subscribers', '--json']).stdout).subscribers[1].lag.since;
    ok(brickpost(subA, ['verify', d2]));
    browser = await launch();
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await browser?.close();
  });

  test('publisher: lag per subscriber, flags past the maximum, drive states', async () => {
    const ui = await startUi(pub);
    servers.push(ui);
    const { page, errors } = await openApp(browser, ui, '#/subscribers');
    await page.waitForSelector('tr[data-subscriber="station-b"]');
    const cells = async (who: string): Promise<string[]> => page.locator(`tr[data-subscriber="${who}"] td`).allInnerTexts();
    const a = await cells('station-a');
    assert.deepEqual([a[1], a[3], a[4]], ['survey', '#2', '1']);
    assert.match(a[2]!, /^#1 /);
    const b = await cells('station-b');
    assert.deepEqual([b[2], b[4]], ['no receipt yet', '2']);
    assert.equal(await page.getAttribute('[data-past]', 'data-past'), '0');
    assert.equal(await page.getAttribute('tr[data-drive="2/1 of 1"][data-state="shipped"]', 'data-state'), 'shipped');
    assert.ok((await page.locator('tr[data-drive="1/1 of 1"][data-state="acknowledged"]').count()) >= 1, 'station-a acknowledged shipment 1');
    await shot(page, 'subscribers');

    await page.fill('#sub-max-shipments', '1');
    await page.click('button:has-text("Show subscribers")');
    await page.waitForSelector('p.banner[data-past="1"]');
    assert.equal(await page.getAttribute('tr[data-subscriber="station-b"]', 'data-past'), 'true');
    assert.equal(await page.getAttribute('tr[data-subscriber="station-a"]', 'data-past'), 'false');
    assert.match(await page.innerText('p.banner[data-past="1"]'), /1 subscriber past the maximum lag/);

    await page.fill('#sub-max-shipments', '');
    await page.fill('#sub-max-time', '30d');
    await page.fill('#sub-now', new Date(Date.parse(firstCreated) + 10 * 86_400_000).toISOString());
    await page.click('button:has-text("Show subscribers")');
    await page.waitForSelector('p.banner[data-past="0"]');
    assert.equal((await cells('station-b'))[6], '10.0');
    await page.fill('#sub-now', new Date(Date.parse(firstCreated) + 31 * 86_400_000).toISOString());
    await page.click('button:has-text("Show subscribers")');
    await page.waitForSelector('p.banner[data-past="2"]');
    await shot(page, 'subscribers-past');

    await page.fill('#sub-max-time', 'soon');
    await page.click('button:has-text("Show subscribers")');
    await page.waitForSelector('text=is neither a number of shipments');
    assert.deepEqual(await unlabelled(page), []);
    assert.deepEqual(errors, []);
  });

  test('subscriber: history says how far behind the newest shipment seen', async () => {
    const ui = await startUi(subA);
    servers.push(ui);
    const { page, errors } = await openApp(browser, ui, `#/history?dest=${encodeURIComponent(destA)}`);
    await page.waitForSelector('text=1 shipment behind the newest seen (seq 2');
    await shot(page, 'history-behind');
    assert.deepEqual(errors, []);
  });
});
