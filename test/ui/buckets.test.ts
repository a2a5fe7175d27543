/**
 * Both wizards with a bucket, in Chromium against the real `brickpost ui`,
 * engine and S3 server (versitygw, test/s3/server.ts): the publisher packs
 * a bucket prefix onto a folder-drive, the subscriber ingests it into
 * another prefix, and the history view lists it; after a second shipment
 * (packed and ingested by the CLI) the history view rolls the prefix back
 * to the first, byte for byte, and finishes an ingest killed half way.
 * Bad bucket URLs and
 * endpoints are refused inline before any call; the calls the page makes
 * (seen on the wire) carry the s3:// URL, the endpoint and the profile.
 * Credentials reach the server only through a profile of an AWS
 * credentials file, as the app never asks for them.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { brickpost, CLI, lastEvent, tempDir } from '../support.js';
import { diffObjects, objects, put } from '../s3/helpers.js';
import { s3Skip, startS3, type S3Server } from '../s3/server.js';
import { atStep, JOB_MS, launch, openApp, shot, skipReason, startUi, type Ui, unlabelled } from './harness.js';

const skip = skipReason() ?? (s3Skip() || null);

/** A call the page made to the UI server (POST /api/call or /api/job), as sent. */
interface Call {
  method: string;
  args: Array<Record<string, unknown>>;
}

/** Records every API call the page makes. */
function recordCalls(page: Page): Call[] {
  const calls: Call[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && /^\/api\/(call|job)$/.test(new URL(r.url()).pathname)) calls.push(r.postDataJSON() as Call);
  });
  return calls;
}

/** The refusal shown under a field, once it shows one matching `re`. */
async function refusal(page: Page, name: string, re: RegExp): Promise<void> {
  const error = page.locator(`[data-testid=${name}-error]`);
  await error.waitFor({ state: 'visible' });
  assert.match((await error.textContent()) ?? '', re);
  assert.equal(await page.getAttribute(`input[name=${name}]`, 'aria-invalid'), 'true');
}

describe.skipIf(skip)(`desktop wizards with a bucket${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let s3: S3Server;
  let browser: Browser;
  let ui: Ui;
  let shipmentId = '';
  const root = tempDir('bp-ui-s3-');
  const home = join(root, 'home');
  const drive = join(root, 'disk1');

  beforeAll(async () => {
    s3 = await startS3();
    await s3.bucket('survey-raw');
    await s3.bucket('archive');
    await put(s3.client, 'survey-raw', '2026/readme.txt', 'hello from a bucket\n', { contentType: 'text/plain', metadata: { owner: 'lab-7' } });
    await put(s3.client, 'survey-raw', '2026/data/a.bin', Buffer.alloc(300_000, 7));
    await put(s3.client, 'survey-raw', '2026/data/b.bin', 'b\n'.repeat(5000));
    await put(s3.client, 'survey-raw', '2026/empty/', Buffer.alloc(0));
    await put(s3.client, 'survey-raw', 'elsewhere/not-this.txt', 'outside the prefix');
    mkdirSync(drive, { recursive: true });
    assert.equal(brickpost(home, ['keygen', '--name', 'survey-lab']).code, 0);
    // The only credentials: a profile of a credentials file (the wizard names the profile and the endpoint).
    const credentials = join(root, 'aws-credentials');
    writeFileSync(credentials, `[lab]\naws_access_key_id = ${s3.access}\naws_secret_access_key = ${s3.secret}\n`);
    ui = await startUi(home, {
      BRICKPOST_DRIVES: drive,
      AWS_SHARED_CREDENTIALS_FILE: credentials,
      AWS_CONFIG_FILE: join(root, 'no-aws-config'),
      AWS_REGION: 'us-east-1',
      // Empty is unset to the SDK: whatever the machine running the tests has, it is not used.
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_SESSION_TOKEN: '',
      AWS_PROFILE: '',
      AWS_ENDPOINT_URL: '',
      AWS_ENDPOINT_URL_S3: '',
    });
    browser = await launch();
  });
  afterAll(async () => {
    await ui?.close();
    await browser?.close();
    s3?.stop();
  });

  test('publisher: a bad bucket URL is refused inline; a bucket prefix is packed with its endpoint and profile', async () => {
    const { page, errors } = await openApp(browser, ui, '#/publish');
    const calls = recordCalls(page);
    await atStep(page, 'source');
    assert.ok(await page.isChecked('input[name=source-kind][value=folder]'), 'a folder is the default');
    await page.check('input[name=source-kind][value=bucket]');
    assert.ok(await page.isHidden('input[name=source]'), 'the folder field is hidden for a bucket');
    assert.match((await page.textContent('[data-testid=credentials-hint]')) ?? '', /environment.*~\/\.aws\/credentials/);
    assert.equal(await page.locator('input[type=password]').count(), 0, 'no field takes a secret');
    assert.deepEqual(await unlabelled(page), []);

    for (const [bad, why] of [
      ['s3://Survey_Raw/2026', /capital letters/],
      ['https://survey-raw/2026', /does not begin with s3:\/\//],
      ['s3://ab', /3 to 63/],
      ['s3://-survey/2026', /begin and end with a letter or a digit/],
      ['s3://survey-raw/2026/../x', /empty, "\." or "\.\." part/],
      ['s3:///2026', /names no bucket/],
    ] as const) {
      await page.fill('input[name=source-url]', bad);
      await page.click('[data-primary]');
      await refusal(page, 'source-url', why);
      assert.equal(await page.getAttribute('section.step', 'data-step'), 'source');
    }
    await shot(page, 'bucket-publish-1-refused');
    await page.fill('input[name=source-url]', 's3://survey-raw/2026/');
    await page.fill('input[name=source-endpoint]', 'localhost:7070');
    await page.click('[data-primary]');
    await refusal(page, 'source-endpoint', /not an http:\/\/ or https:\/\/ URL/);
    assert.ok(await page.isHidden('[data-testid=source-url-error]'), 'the good URL is accepted');
    assert.equal(calls.length, 0, `nothing refused reached the engine: ${JSON.stringify(calls)}`);

    await page.fill('input[name=source-endpoint]', s3.endpoint);
    await page.fill('input[name=source-profile]', 'lab');
    await shot(page, 'bucket-publish-1-source');
    await page.click('[data-primary]');
    await atStep(page, 'estimate');
    const facts = (await page.textContent('.facts')) ?? '';
    for (const v of ['s3://survey-raw/2026', s3.endpoint, 'lab']) assert.ok(facts.includes(v), `the estimate step shows ${v}: ${facts}`);
    await page.click('[data-primary]');
    await atStep(page, 'drives');
    await page.check(`input[name=drive-choice][value="${drive}"]`);
    await page.click('[data-primary]');
    await atStep(page, 'recipients');
    await page.click('[data-primary]');
    await atStep(page, 'options');
    assert.equal(await page.inputValue('input[name=dataset]'), '2026', 'the dataset is named after the prefix');
    await page.fill('input[name=dataset]', 'survey-raw');
    await page.click('[data-primary]');
    await atStep(page, 'pack');
    assert.match((await page.textContent('.facts')) ?? '', /From bucket\s*s3:\/\/survey-raw\/2026/);
    await atStep(page, 'done', JOB_MS);
    shipmentId = (await page.textContent('[data-testid=shipment-id]'))!.trim();
    assert.ok(existsSync(join(drive, 'brickpost', shipmentId)), 'the shipment is on the drive');
    assert.match((await page.textContent('.facts')) ?? '', /3 files/);
    await shot(page, 'bucket-publish-7-done');

    assert.ok(!calls.some((c) => c.method === 'sourceInfo'), 'a bucket is not counted as a folder');
    const pack = calls.filter((c) => c.method === 'pack');
    assert.equal(pack.length, 1);
    assert.equal(pack[0]!.args[0]!.source, 's3://survey-raw/2026');
    assert.deepEqual(pack[0]!.args[0]!.s3, { endpointUrl: s3.endpoint, profile: 'lab' });
    assert.deepEqual(errors, []);
  });

  test('subscriber: a bad bucket URL is refused inline; the drive is ingested into a prefix; its history is shown', async () => {
    assert.ok(shipmentId, 'the publisher test packed nothing');
    const { page, errors } = await openApp(browser, ui, '#/receive');
    const calls = recordCalls(page);
    await atStep(page, 'drive');
    await page.check(`input[name=drive-choice][value="${drive}"]`);
    await page.click('[data-primary]');
    await atStep(page, 'verdict', 60_000);
    await page.waitForSelector('[data-verdict=intact]');
    await page.click('[data-primary]');

    await atStep(page, 'dest');
    await page.check('input[name=dest-kind][value=bucket]');
    assert.ok(await page.isHidden('input[name=dest]'));
    await page.fill('input[name=dest-url]', 's3://archive//survey');
    await page.click('[data-primary]');
    await refusal(page, 'dest-url', /empty, "\." or "\.\." part/);
    assert.equal(await page.getAttribute('section.step', 'data-step'), 'dest');
    await page.fill('input[name=dest-url]', 's3://archive/survey');
    await page.fill('input[name=dest-endpoint]', s3.endpoint);
    await page.fill('input[name=dest-profile]', 'lab');
    await page.locator('input[name=dest-profile]').blur();
    await page.waitForSelector('[data-testid=applies] .banner');
    assert.match((await page.textContent('[data-testid=applies]')) ?? '', /new destination/i);
    assert.ok(await page.isHidden('[data-testid=dest-url-error]'));
    await shot(page, 'bucket-receive-4-dest');
    assert.deepEqual(await unlabelled(page), []);
    await page.click('[data-primary]');
    await atStep(page, 'ingest');
    assert.match((await page.textContent('.facts')) ?? '', /Into bucket\s*s3:\/\/archive\/survey/);
    await atStep(page, 'received', JOB_MS);
    assert.deepEqual(diffObjects(await objects(s3.client, 'survey-raw', '2026/'), await objects(s3.client, 'archive', 'survey/')), []);
    assert.equal(await page.locator('button:has-text("Export receipt")').count(), 0, 'receipts are made of folders only');
    await shot(page, 'bucket-receive-5-done');

    const ingest = calls.filter((c) => c.method === 'ingest');
    assert.equal(ingest.length, 1);
    assert.equal(ingest[0]!.args[0]!.dest, 's3://archive/survey');
    assert.deepEqual(ingest[0]!.args[0]!.s3, { endpointUrl: s3.endpoint, profile: 'lab' });
    // The destination step looks the place up as its fields change; the last look, before the ingest, had them all.
    const looked = calls.slice(0, calls.indexOf(ingest[0]!)).filter((c) => c.method === 'history');
    assert.ok(looked.length > 0, 'the destination step asked for its history');
    assert.deepEqual(looked[looked.length - 1]!.args[0], { dest: 's3://archive/survey', s3: { endpointUrl: s3.endpoint, profile: 'lab' } });

    await page.click('a:has-text("History of this bucket")');
    await page.waitForSelector(`tr[data-shipment="${shipmentId}"]`);
    assert.ok(await page.isChecked('input[name=history-dest-kind][value=bucket]'));
    assert.equal(await page.inputValue('input[name=history-dest-url]'), 's3://archive/survey');
    assert.equal(await page.locator('[data-rollback], [data-pin-shipment], [data-unpin]').count(), 0, 'one shipment: nothing to roll back to, and no pins');
    const last = calls[calls.length - 1]!;
    assert.deepEqual(last, { method: 'history', args: [{ dest: 's3://archive/survey', s3: { endpointUrl: s3.endpoint, profile: 'lab' } }] });
    await shot(page, 'bucket-history');
    assert.deepEqual(errors, []);
  });
  test('history rolls a bucket prefix back to its first shipment, byte for byte, and finishes an interrupted ingest', async () => {
    assert.ok(shipmentId, 'the publisher test packed nothing');
    const dest = 's3://archive/survey';
    const s3opts = { endpointUrl: s3.endpoint, profile: 'lab' };
    const v1 = await objects(s3.client, 'archive', 'survey/');
    // Shipment 2, packed and ingested by the CLI: an object changed with new metadata, one deleted, one added.
    await put(s3.client, 'survey-raw', '2026/readme.txt', 'hello again, changed\n', { contentType: 'text/markdown', metadata: { owner: 'lab-8' } });
    await s3.client.send(new DeleteObjectCommand({ Bucket: 'survey-raw', Key: '2026/data/b.bin' }));
    await put(s3.client, 'survey-raw', '2026/data/c.txt', 'added by shipment 2\n');
    const disk2 = join(root, 'disk2');
    mkdirSync(disk2);
    const me = JSON.parse(brickpost(home, ['whoami', '--json']).stdout) as { recipient: string };
    const packed = brickpost(home, ['pack', 's3://survey-raw/2026', '--to', disk2, '-r', me.recipient, '--dataset', 'survey-raw', '--json'], { env: s3.env });
    assert.equal(packed.code, 0, packed.stderr);
    const second = lastEvent(packed).result as { shipmentId: string; seq: number };
    assert.equal(second.seq, 2);
    const ingested = brickpost(home, ['ingest', disk2, dest, '--json'], { env: s3.env });
    assert.equal(ingested.code, 0, ingested.stderr);
    const v2 = await objects(s3.client, 'archive', 'survey/');
    assert.deepEqual(diffObjects(await objects(s3.client, 'survey-raw', '2026/'), v2), []);
    assert.ok(diffObjects(v1, v2).length >= 3, 'shipment 2 changed the prefix');

    const { page, errors } = await openApp(browser, ui, `#/history?dest=${encodeURIComponent(dest)}&endpoint=${encodeURIComponent(s3.endpoint)}&profile=lab`);
    const calls = recordCalls(page);
    await page.waitForSelector('tr[data-shipment] >> nth=1');
    const headers = await page.locator('thead th').allTextContents();
    assert.ok(headers.includes('Undo data') && headers.includes('Rollback'), `columns: ${headers.join(', ')}`);
    assert.ok(!headers.includes('Pins'), 'pins are for folders');
    assert.equal(await page.locator('[data-pin-shipment], [data-unpin]').count(), 0);
    const view = (await page.textContent('.view')) ?? '';
    assert.match(view, /Rollback reach\s*the last 3 shipment\(s\); [\d.]+ \S*B of undo objects in the bucket \(pins are for folder destinations\)/);
    assert.doesNotMatch(view, /keeps no undo data/);
    assert.notEqual((await page.textContent(`tr[data-shipment="${second.shipmentId}"] td:nth-child(6)`))?.trim(), '—', 'shipment 2 has undo data');
    await page.click(`tr[data-shipment="${shipmentId}"] button[data-rollback]`);
    await page.waitForSelector('[role=alertdialog]');
    assert.match((await page.textContent('[role=alertdialog]')) ?? '', /Return s3:\/\/archive\/survey to the objects it held after shipment 1\?/);
    await shot(page, 'bucket-history-rollback');
    await page.click('[role=alertdialog] [data-primary]');
    await page.waitForSelector('text=Rolled back from shipment 2 to 1');
    assert.deepEqual(diffObjects(v1, await objects(s3.client, 'archive', 'survey/')), []);
    assert.equal(await page.locator('tr[data-shipment]').count(), 1);
    const rollback = calls.filter((c) => c.method === 'rollback');
    assert.equal(rollback.length, 1);
    assert.deepEqual(rollback[0]!.args[0], { dest, s3: s3opts, to: shipmentId });

    // Shipment 2 applied again and killed in its commit: the page says so and finishes it, with the endpoint and profile.
    const killed = spawnSync(process.execPath, [CLI, '--home', home, '--quiet', 'ingest', disk2, dest], {
      env: { ...s3.env, BRICKPOST_FAILPOINT: 's3-apply@1' },
    });
    assert.equal(killed.signal, 'SIGKILL', String(killed.stderr));
    await page.click('button:has-text("Show history")');
    await page.waitForSelector('[data-in-progress=ingest]');
    assert.match((await page.textContent('[data-in-progress=ingest]')) ?? '', /the ingest of shipment #2 \S+ was interrupted/);
    await shot(page, 'bucket-history-interrupted');
    await page.click('button:has-text("Finish it now")');
    await page.waitForSelector('text=Finished ');
    assert.equal(await page.locator('[data-in-progress]').count(), 0);
    assert.deepEqual(diffObjects(v2, await objects(s3.client, 'archive', 'survey/')), []);
    const resume = calls.filter((c) => c.method === 'resume');
    assert.equal(resume.length, 1);
    assert.deepEqual(resume[0]!.args[0], { dest, s3: s3opts });
    assert.deepEqual(errors, []);
  });
});
