/**
 * Both wizards end to end in Chromium against the real `brickpost ui` and
 * engine: the publisher pastes the subscriber's `brickpost whoami` text
 * (adding them to its trust store with their recipient), picks them and
 * packs a small dataset to two folder-drives for them; the subscriber adds the publisher's key in the trust view,
 * checks a drive (intact), deep-checks it, ingests it (DEST equals the
 * source), exports a receipt and opens the report; the history view lists
 * the shipment, rolls a second one back, and pins a point and unpins it.
 * Screenshots of every step go to test-artifacts/ui/.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { brickpost, CLI, diffSnapshots, makeDataset, MAKE_DATASET, sh, snapshot, tempDir } from '../support.js';
import { atStep, JOB_MS, launch, openApp, shot, skipReason, srcdoc, startUi, type Ui, unlabelled } from './harness.js';

const skip = skipReason();

describe.skipIf(skip)(`desktop wizards${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const root = tempDir('bp-ui-');
  const src = join(root, 'survey');
  const drives = join(root, 'drives');
  const [d1, d2] = [join(drives, 'disk1'), join(drives, 'disk2')];
  const dest = join(root, 'dest');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  let browser: Browser;
  let pubKey = '';
  let pubKeyId = '';
  let subRecipient = '';
  let subKeyId = '';
  let subContact = '';
  let shipmentId = '';
  const servers: Ui[] = [];

  beforeAll(async () => {
    makeDataset(src, '3M', 5);
    mkdirSync(d1, { recursive: true });
    mkdirSync(d2, { recursive: true });
    assert.equal(brickpost(pub, ['keygen', '--name', 'survey-lab']).code, 0);
    assert.equal(brickpost(sub, ['keygen', '--name', 'field-station']).code, 0);
    const p = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout);
    [pubKey, pubKeyId] = [p.minisignPublicKey, p.keyId];
    ({ recipient: subRecipient, keyId: subKeyId } = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout));
    subContact = brickpost(sub, ['whoami']).stdout;
    browser = await launch();
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await browser?.close();
  });

  test('publisher: source, estimate, two folder-drives, a recipient, options, pack, report and labels', async () => {
    // disk1 is offered as a detected drive ($BRICKPOST_DRIVES); disk2 is typed in.
    const ui = await startUi(pub, { BRICKPOST_DRIVES: d1 });
    servers.push(ui);
    const { page, errors } = await openApp(browser, ui, '#/publish');
    await atStep(page, 'source');
    await page.fill('input[name=source]', src);
    await shot(page, 'publish-1-source');
    await page.click('[data-primary]');
    await atStep(page, 'estimate');
    assert.match((await page.textContent('.facts')) ?? '', /files? in/);
    await shot(page, 'publish-2-estimate');
    await page.click('[data-primary]');

    await atStep(page, 'drives');
    await page.check(`input[name=drive-choice][value="${d1}"]`);
    await page.fill('input[name=add-drive]', d2);
    await page.click('button:has-text("Add folder")');
    await page.waitForSelector(`input[name=drive-choice][value="${d2}"]:checked`);
    await shot(page, 'publish-3-drives');
    await page.click('[data-primary]');

    await atStep(page, 'recipients');
    assert.equal(await page.locator('input[name=recipient]').count(), 0, 'no subscriber is trusted yet');
    assert.ok(await page.isChecked('input[name=self]'), 'the publisher itself is a recipient by default');
    // A text without a recipient is refused before anything is trusted.
    await page.fill(
      'textarea[name=contact]',
      subContact
        .split('\n')
        .filter((l) => !l.startsWith('recipient'))
        .join('\n'),
    );
    await page.click('button:has-text("Add subscriber")');
    await page.waitForSelector('.banner.warn:has-text("no recipient")');
    await page.fill('textarea[name=contact]', subContact);
    await page.click('button:has-text("Add subscriber")');
    await page.waitForSelector('[data-testid=subscriber-added]');
    const box = `input[name=recipient][data-key-id="${subKeyId}"]`;
    await page.waitForSelector(`${box}:checked`);
    assert.equal(await page.getAttribute(box, 'value'), subRecipient);
    assert.match(
      (await page.textContent(`label[for="${await page.getAttribute(box, 'id')}"]`)) ?? '',
      /field-station key id [0-9A-F ]{19} recipient age1\S{8}…\S{8}/,
    );
    await shot(page, 'publish-4-recipients');
    assert.deepEqual(await unlabelled(page), []);
    // Back and forth keeps the choice; the subscriber is now listed from the trust store.
    await page.click('button:has-text("Back")');
    await atStep(page, 'drives');
    await page.click('[data-primary]');
    await atStep(page, 'recipients');
    await page.waitForSelector(`${box}:checked`);
    await page.click('[data-primary]');

    await atStep(page, 'options');
    await page.fill('input[name=dataset]', 'survey');
    await page.fill('input[name=label]', 'March 2026');
    await shot(page, 'publish-5-options');
    assert.deepEqual(await unlabelled(page), []);
    await page.click('[data-primary]');
    await atStep(page, 'pack');
    await page.waitForSelector('.progress-panel');
    await shot(page, 'publish-6-packing');

    await atStep(page, 'done', JOB_MS);
    shipmentId = (await page.textContent('[data-testid=shipment-id]'))!.trim();
    assert.match(shipmentId, /\S{6,}/);
    for (const d of [d1, d2]) assert.ok(existsSync(join(d, 'brickpost', shipmentId)), `no shipment folder on ${d}`);
    // The frames run no scripts (sandboxed), so their documents are read from srcdoc.
    assert.match(await srcdoc(page, '[data-frame=report]'), new RegExp(shipmentId));
    const labels = await srcdoc(page, '[data-frame=label]');
    assert.match(labels, /drive 1 of 2/i);
    assert.match(labels, /drive 2 of 2/i);
    await shot(page, 'publish-7-done');
    assert.deepEqual(errors, []);
  });

  test('trust view: a pasted publisher key is added and its fingerprint shown', async () => {
    const ui = await startUi(sub, { BRICKPOST_DRIVES: [d1, d2].join(':') });
    servers.push(ui);
    const { page, errors } = await openApp(browser, ui, '#/trust');
    await page.waitForSelector('[data-testid=my-recipient]');
    await page.fill('textarea[name=trust-key]', pubKey);
    await page.fill('input[name=trust-name]', 'survey-lab');
    await page.click('button:has-text("Trust this key")');
    await page.waitForSelector('[data-testid=trust-added]');
    const fp = pubKeyId.replace(/(.{4})(?=.)/g, '$1 ');
    await page.waitForSelector(`tr[data-key-id="${pubKeyId}"]`);
    assert.match((await page.textContent(`tr[data-key-id="${pubKeyId}"]`)) ?? '', new RegExp(`survey-lab.*${fp}.*none`));
    assert.equal(
      (await page.textContent(`tr[data-key-id="${subKeyId}"] [data-testid=trusted-recipient]`))?.trim(),
      subRecipient,
      "the own row shows this home's recipient",
    );
    await shot(page, 'trust');
    assert.deepEqual(errors, []);
  });

  test('subscriber: intact verdict, deep check, ingest equals the source, receipt, report, history', async () => {
    assert.ok(shipmentId, 'the publisher test packed nothing');
    const ui = servers[1]!;
    const { page, errors } = await openApp(browser, ui, '#/receive');
    await atStep(page, 'drive');
    await page.waitForSelector(`input[name=drive-choice][value="${d1}"]`);
    await page.check(`input[name=drive-choice][value="${d1}"]`);
    await shot(page, 'receive-1-drive');
    await page.click('[data-primary]');
    await atStep(page, 'verdict', 60_000);
    await page.waitForSelector('[data-verdict=intact]');
    const text = (await page.textContent('.step-body')) ?? '';
    assert.match(text, /survey-lab/);
    assert.match(text, /March 2026/);
    assert.ok(text.includes(pubKeyId.replace(/(.{4})(?=.)/g, '$1 ')), 'the key id is shown');
    await shot(page, 'receive-2-verdict');
    assert.deepEqual(await unlabelled(page), []);
    await page.click('button:has-text("Deep check")');
    await page.waitForSelector('[data-deep=ok]', { timeout: 60_000 });
    await shot(page, 'receive-3-deep');
    await page.click('[data-primary]');

    await atStep(page, 'dest');
    await page.fill('input[name=dest]', dest);
    await page.locator('input[name=dest]').blur();
    await page.waitForSelector('[data-testid=applies] .banner');
    assert.match((await page.textContent('[data-testid=applies]')) ?? '', /new destination/i);
    await shot(page, 'receive-4-dest');
    assert.deepEqual(await unlabelled(page), []);
    await page.click('[data-primary]');
    await atStep(page, 'received', JOB_MS);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    await shot(page, 'receive-5-done');

    await page.click('button:has-text("Export receipt")');
    const receiptPath = (await page.textContent('[data-testid=receipt-path]', { timeout: 30_000 }))!.trim();
    assert.ok(existsSync(receiptPath), `receipt not written at ${receiptPath}`);
    const shown = (await page.textContent('.receipt-text')) ?? '';
    assert.equal(shown, readFileSync(receiptPath, 'utf8'));
    assert.match(shown, /brickpost-receipt\/v1/);
    await page.click('button:has-text("Open report")');
    assert.match(await srcdoc(page, '[data-testid=report] [data-frame=report]'), new RegExp(shipmentId));
    await shot(page, 'receive-6-receipt-report');

    await page.click('a:has-text("History of this folder")');
    await page.waitForSelector(`tr[data-shipment="${shipmentId}"]`);
    await shot(page, 'history');
    assert.deepEqual(errors, []);
  });

  test('subscriber: a second shipment applies as an incremental update, and history rolls it back', async () => {
    assert.ok(shipmentId, 'the publisher test packed nothing');
    const v1 = snapshot(src);
    sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', '9', '-q']);
    const next = join(root, 'drives2', 'disk1');
    mkdirSync(next, { recursive: true });
    const p = brickpost(pub, ['pack', src, '--to', next, '--recipient', subRecipient, '--dataset', 'survey', '--label', 'April 2026']);
    assert.equal(p.code, 0, p.stderr);
    const { page, errors } = await openApp(browser, servers[1]!, '#/receive');
    await atStep(page, 'drive');
    await page.fill('input[name=drive]', next);
    await page.click('[data-primary]');
    await page.waitForSelector('[data-verdict=intact]', { timeout: 60_000 });
    assert.match((await page.textContent('.step-body')) ?? '', /2 \(applies on top of shipment 1\)/);
    await page.click('[data-primary]');
    await atStep(page, 'dest');
    await page.fill('input[name=dest]', dest);
    await page.locator('input[name=dest]').blur();
    await page.waitForSelector('[data-testid=applies] .banner');
    assert.match((await page.textContent('[data-testid=applies]')) ?? '', /incremental update: shipment 2 on top of shipment 1/);
    await shot(page, 'receive-incremental-dest');
    await page.click('[data-primary]');
    await atStep(page, 'received', JOB_MS);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);

    await page.click('a:has-text("History of this folder")');
    await page.waitForSelector('tr[data-shipment] >> nth=1');
    assert.equal(await page.locator('tr[data-shipment]').count(), 2);
    await page.click(`tr[data-shipment="${shipmentId}"] button[data-rollback]`);
    await page.waitForSelector('[role=alertdialog]');
    await shot(page, 'history-rollback');
    await page.click('[role=alertdialog] [data-primary]');
    await page.waitForSelector('text=Rolled back from shipment 2 to 1');
    assert.deepEqual(diffSnapshots(v1, snapshot(dest)), []);

    // Shipment 2 applied again and killed in its commit: the history page says what DEST may hold and finishes it.
    const killed = spawnSync(process.execPath, [CLI, '--home', sub, '--quiet', 'ingest', next, dest], {
      env: { ...process.env, BRICKPOST_FAILPOINT: 'apply-install@2' },
    });
    assert.equal(killed.signal, 'SIGKILL', String(killed.stderr));
    await page.click('button:has-text("Show history")');
    await page.waitForSelector('[data-in-progress=ingest]');
    const banner = (await page.textContent('[data-in-progress=ingest]')) ?? '';
    assert.match(banner, /the ingest of shipment #2 \S+ was interrupted/);
    assert.match(banner, /may hold some entries of #1 and some of #2, each entry whole/);
    assert.match(banner, new RegExp(`to finish it: brickpost resume ${dest}`));
    await shot(page, 'history-interrupted');
    await page.click('button:has-text("Finish it now")');
    await page.waitForSelector('text=Finished the commit of shipment');
    assert.equal(await page.locator('[data-in-progress]').count(), 0);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    assert.deepEqual(errors, []);
  });

  test('subscriber: history pins a kept shipment under a name, shows the pin and what undo data costs, and unpins it', async () => {
    assert.ok(shipmentId, 'the publisher test packed nothing');
    const { page, errors } = await openApp(browser, servers[1]!, `#/history?dest=${encodeURIComponent(dest)}`);
    await page.waitForSelector('tr[data-shipment] >> nth=1');
    assert.match((await page.textContent('.view')) ?? '', /Rollback reach.*of undo data on disk/s);
    await page.click('button[data-pin-shipment="1"]');
    await page.fill('input[name=pin-name]', 'before reprocessing');
    await shot(page, 'history-pin');
    await page.click('[role=dialog] [data-primary]');
    await page.waitForSelector('text=Pinned shipment 1');
    assert.equal(await page.locator(`tr[data-shipment="${shipmentId}"] [data-pin="before reprocessing"]`).count(), 1);
    let h = JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout);
    assert.deepEqual(
      h.pins.map((p: { name: string; seq: number }) => [p.name, p.seq]),
      [['before reprocessing', 1]],
    );
    await page.click('button[data-unpin="before reprocessing"]');
    await page.waitForSelector('text=Unpinned “before reprocessing”');
    assert.equal(await page.locator('[data-pin]').count(), 0);
    h = JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout);
    assert.deepEqual(h.pins, []);
    assert.deepEqual(errors, []);
  });
});
