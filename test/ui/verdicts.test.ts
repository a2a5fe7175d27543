/**
 * The subscriber's verdicts in Chromium against the real `brickpost ui`: a
 * genuine drive is `intact` (reached with the keyboard only: Tab to the
 * step's primary button, Enter), a drive with a byte flipped in a pack is
 * `damaged`, a drive signed by a key the home does not trust is `untrusted`,
 * a plain folder is `not-brickpost`; a drive with two shipments asks which.
 * Also the folder picker, an error as a sentence, cancelling a pack, the
 * planner's chart, and every view at 200 % zoom without sideways scrolling.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, openSync, readSync, readdirSync, writeSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { brickpost, makeDataset, publisherAndSubscriber, shipmentDir, tempDir } from '../support.js';
import { atStep, launch, openApp, overflowsX, shot, skipReason, startUi, tabTo, unlabelled, type Ui } from './harness.js';

const skip = skipReason();

/** Flips one byte in the middle of the first pack of a drive. */
function flipPackByte(drive: string): void {
  const data = join(shipmentDir(drive), 'data');
  const pack = readdirSync(join(data, 'packs'), { recursive: true, withFileTypes: true }).find((e) => e.isFile() && e.name.endsWith('.age'));
  assert.ok(pack, `no pack under ${data}`);
  const p = join(pack.parentPath, pack.name);
  const fd = openSync(p, 'r+');
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, 4096);
  writeSync(fd, Buffer.from([b[0]! ^ 0xff]), 0, 1, 4096);
  closeSync(fd);
}

describe.skipIf(skip)(`drive verdicts${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const root = tempDir('bp-ui-');
  const [pub, sub, stranger] = ['pub', 'sub', 'stranger'].map((n) => join(root, n)) as [string, string, string];
  const src = join(root, 'src');
  const good = join(root, 'a', 'good');
  const tampered = join(root, 'b', 'tampered');
  const strange = join(root, 'c', 'strange');
  const plain = join(root, 'plain');
  const both = join(root, 'd', 'both');
  let browser: Browser;
  let ui: Ui;

  /** Opens the subscriber wizard fresh and checks `drive`; returns the verdict shown. */
  async function check(page: Page, drive: string, name: string): Promise<string | null> {
    await page.evaluate(`location.hash = '#/'`);
    await page.evaluate(`location.hash = '#/receive'`);
    await atStep(page, 'drive');
    await page.fill('input[name=drive]', drive);
    await page.click('[data-primary]');
    await atStep(page, 'verdict', 60_000);
    const v = await page.getAttribute('[data-verdict]', 'data-verdict');
    await shot(page, name);
    return v;
  }

  beforeAll(async () => {
    makeDataset(src, '1M', 7);
    const recipient = publisherAndSubscriber(pub, sub);
    assert.equal(brickpost(stranger, ['keygen', '--name', 'stranger']).code, 0);
    for (const d of [good, strange, plain, both]) mkdirSync(d, { recursive: true });
    writeFileSync(join(plain, 'holiday.jpg'), 'not a shipment');
    assert.equal(brickpost(pub, ['pack', src, '--to', good, '--recipient', recipient, '--dataset', 'survey']).code, 0);
    cpSync(good, tampered, { recursive: true });
    for (const label of ['first', 'second'])
      assert.equal(brickpost(pub, ['pack', src, '--to', both, '--recipient', recipient, '--dataset', 'survey', '--label', label]).code, 0);
    flipPackByte(tampered);
    assert.equal(brickpost(stranger, ['pack', src, '--to', strange, '--recipient', recipient, '--dataset', 'survey']).code, 0);
    ui = await startUi(sub);
    browser = await launch();
  });
  afterAll(async () => {
    await ui?.close();
    await browser?.close();
  });

  test('a genuine drive is intact, checked with the keyboard only', async () => {
    const { page, errors } = await openApp(browser, ui, '#/receive');
    await atStep(page, 'drive');
    await page.fill('input[name=drive]', good);
    await page.focus('input[name=drive]');
    assert.ok(await tabTo(page, '[data-primary]'), 'Tab never reached the primary button');
    await page.keyboard.press('Enter');
    await atStep(page, 'verdict', 60_000);
    await page.waitForSelector('[data-verdict=intact]');
    // The new step's heading has the focus, and Tab goes on to the step's buttons.
    assert.equal(await page.evaluate(`document.activeElement?.id`), 'step-heading');
    assert.ok(await tabTo(page, '[data-primary]'));
    await page.keyboard.press('Enter');
    await atStep(page, 'dest');
    assert.deepEqual(errors, []);
  });

  test('damaged, untrusted and not-brickpost drives say so, and offer no ingest', async () => {
    const { page, errors } = await openApp(browser, ui, '#/');
    assert.equal(await check(page, tampered, 'verdict-damaged'), 'damaged');
    assert.match((await page.textContent('[data-verdict]')) ?? '', /Damaged/);
    assert.ok(await page.isDisabled('[data-primary]'));
    assert.equal(await check(page, strange, 'verdict-untrusted'), 'untrusted');
    const strangerId = JSON.parse(brickpost(stranger, ['whoami', '--json']).stdout).keyId as string;
    assert.ok((await page.textContent('[data-verdict]'))?.includes(strangerId.replace(/(.{4})(?=.)/g, '$1 ')), 'the untrusted key id is shown');
    assert.ok(await page.isDisabled('[data-primary]'));
    assert.equal(await check(page, plain, 'verdict-not-brickpost'), 'not-brickpost');
    assert.match((await page.textContent('[data-verdict]')) ?? '', /Not a brickpost drive/);
    assert.doesNotMatch((await page.textContent('main')) ?? '', /\bat \S+:\d+:\d+|Error:/, 'no stack trace or raw error shown');
    assert.deepEqual(errors, []);
  });

  test('a drive with two shipments asks which one, newest first', async () => {
    const { page, errors } = await openApp(browser, ui, '#/receive');
    await atStep(page, 'drive');
    await page.fill('input[name=drive]', both);
    await page.click('[data-primary]');
    await page.waitForSelector('input[name=shipment]:checked');
    assert.equal(await page.locator('input[name=shipment]').count(), 2);
    const newest = readdirSync(join(both, 'brickpost')).sort().pop()!;
    assert.equal(await page.getAttribute('input[name=shipment]:checked', 'value'), newest);
    await shot(page, 'receive-choose-shipment');
    await page.click('[data-primary]');
    await page.waitForSelector('[data-verdict=intact]', { timeout: 60_000 });
    assert.ok((await page.textContent('.step-body'))?.includes(newest), 'the chosen shipment is the one checked');
    assert.deepEqual(errors, []);
  });

  test('the folder picker browses with listFolder, and a failure is a sentence with no stack', async () => {
    const { page, errors } = await openApp(browser, ui, '#/publish');
    await atStep(page, 'source');
    await page.fill('input[name=source]', root);
    await page.click('button:has-text("Choose…")');
    await page.click('.picker button:has-text("src/")');
    await page.waitForSelector(`.picker-path:has-text("${join(root, 'src')}")`);
    await page.click('.picker button:has-text("Use this folder")');
    assert.equal(await page.inputValue('input[name=source]'), join(root, 'src'));
    const missing = join(root, 'no-such-folder');
    await page.fill('input[name=source]', missing);
    await page.click('[data-primary]');
    const alert = page.locator('[role=alert]');
    await alert.waitFor();
    const text = await alert.innerText();
    assert.ok(text.includes(missing), `the message names the folder: ${text}`);
    assert.doesNotMatch(text, /\bat \S+:\d+|Error:|undefined/);
    await shot(page, 'error-source');
    assert.deepEqual(errors, []);
  });

  test('packing can be cancelled: the page says so and no finished shipment is left', async () => {
    const big = join(root, 'big');
    const target = join(root, 'e', 'target');
    mkdirSync(target, { recursive: true });
    makeDataset(big, '48M', 3);
    const { page, errors } = await openApp(browser, ui, '#/publish');
    await atStep(page, 'source');
    await page.fill('input[name=source]', big);
    await page.click('[data-primary]');
    await atStep(page, 'estimate');
    await page.click('[data-primary]');
    await atStep(page, 'drives');
    await page.fill('input[name=add-drive]', target);
    await page.click('button:has-text("Add folder")');
    await page.waitForSelector('input[name=drive-choice]:checked');
    await page.click('[data-primary]');
    await atStep(page, 'recipients');
    await page.click('[data-primary]');
    await atStep(page, 'options');
    await page.click('[data-primary]');
    await atStep(page, 'pack');
    await page.click('button:has-text("Cancel")');
    await page.waitForSelector('text=Packing was cancelled', { timeout: 60_000 });
    await shot(page, 'publish-cancelled');
    assert.equal(await page.locator('section.step').getAttribute('data-step'), 'pack');
    const folder = join(target, 'brickpost');
    const left = existsSync(folder) ? readdirSync(folder).filter((n) => !n.endsWith('.part')) : [];
    assert.deepEqual(left, [], 'a cancelled pack leaves no finished shipment');
    await page.click('button:has-text("Back to options")');
    await atStep(page, 'options');
    assert.deepEqual(errors, []);
  });

  test('a home without keys is told so, and creates them in the trust view', async () => {
    const fresh = await startUi(join(root, 'fresh'));
    try {
      const { page, errors } = await openApp(browser, fresh, '#/');
      await page.waitForSelector('text=This computer has no keys yet');
      await page.click('a:has-text("Create them in Trust")');
      await page.fill('input[name=identity-name]', 'new-lab');
      await page.click('button:has-text("Create my keys")');
      await page.waitForSelector('[data-testid=my-recipient]');
      const me = JSON.parse(brickpost(join(root, 'fresh'), ['whoami', '--json']).stdout);
      assert.equal(me.name, 'new-lab');
      assert.equal((await page.textContent('[data-testid=my-recipient]'))?.trim(), me.recipient);
      assert.deepEqual(await unlabelled(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await fresh.close();
    }
  });

  test('planner: times for both ways and a chart of time against size', async () => {
    const { page, errors } = await openApp(browser, ui, '#/plan');
    await page.waitForSelector('[data-testid=recommendation]');
    assert.equal(await page.locator('svg.chart path.series').count(), 2);
    assert.match((await page.textContent('[data-testid=plan-result]')) ?? '', /By drive/);
    await shot(page, 'plan');
    assert.deepEqual(errors, []);
  });

  test('at 200 % zoom no view scrolls sideways', async () => {
    // A 1280-pixel-wide window at 200 %: 640 CSS pixels, two device pixels each.
    const { page, errors } = await openApp(browser, ui, '#/', { viewport: { width: 640, height: 900 }, deviceScaleFactor: 2 });
    assert.equal(await check(page, tampered, 'zoom-verdict-damaged'), 'damaged');
    assert.equal(await overflowsX(page), false, 'verdict step overflows');
    for (const [hash, ready, name] of [
      ['#/publish', 'section.step[data-step=source]', 'zoom-publish-source'],
      ['#/trust', '[data-testid=my-recipient]', 'zoom-trust'],
      ['#/plan', 'svg.chart', 'zoom-plan'],
      [`#/history?dest=${encodeURIComponent(plain)}`, '[role=alert]', 'zoom-history'],
    ] as const) {
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      await page.waitForSelector(ready);
      await shot(page, name);
      assert.equal(await overflowsX(page), false, `${hash} overflows at 200 %`);
      assert.deepEqual(await unlabelled(page), [], `${hash} has controls without a label`);
    }
    // The check itself sees an element wider than the window.
    await page.evaluate(`document.querySelector('main').append(Object.assign(document.createElement('div'), { style: 'width: 2000px; height: 1px' }))`);
    assert.equal(await overflowsX(page), true);
    await page.evaluate(`document.querySelector('main').append(Object.assign(document.createElement('input'), { name: 'stray' }))`);
    assert.deepEqual(await unlabelled(page), ['input[name=stray]']);
    assert.deepEqual(errors, []);
  });
});
