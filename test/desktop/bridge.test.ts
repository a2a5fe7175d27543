/**
 * The browser bridge in real Chromium (headless, driven by playwright-core)
 * against `startUiServer` serving the built renderer: `window.brickpost`
 * is defined with host 'browser', the token leaves the address bar, calls
 * and a job with its events go through, failures reject with Errors that
 * carry code and hint, and a reload is let in by the session cookie.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { RENDERER_ROOT, startUiServer, type UiServer } from '@brickpost/desktop/server';
import { tempDir } from '../support.js';

const CHROMIUM = process.env.BRICKPOST_CHROMIUM ?? '/usr/bin/chromium';
const BRIDGE = join(RENDERER_ROOT, 'web', 'renderer', 'bridge', 'browser.js');
const skip = !existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM} (set BRICKPOST_CHROMIUM)` : false;
// The build makes the bridge: its absence is a failure, not a reason to skip.
if (!existsSync(BRIDGE)) throw new Error(`the bridge is not built at ${BRIDGE} (npx tsc -b makes it)`);

type Api = Record<string, (...a: unknown[]) => Promise<unknown>>;

describe.skipIf(skip)(`browser bridge${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const root = tempDir('bp-bridge-');
  let server: UiServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    server = await startUiServer({ home: join(root, 'home') });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => (globalThis as unknown as { brickpost?: unknown }).brickpost !== undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test('window.brickpost is the browser bridge, and the token left the address bar', async () => {
    assert.equal(await page.evaluate(() => (globalThis as unknown as { brickpost: { host: string } }).brickpost.host), 'browser');
    assert.doesNotMatch(page.url(), /token=/);
    assert.equal(await page.evaluate(() => (globalThis as unknown as { brickpost: Api }).brickpost.chooseFolder!({ title: 'x' })), null);
  });

  test('calls go through; a failure rejects with an Error carrying code, hint and exit code', async () => {
    const who = await page.evaluate(async () => {
      const api = (globalThis as unknown as { brickpost: Api }).brickpost;
      const before = await api.whoami!();
      const made = (await api.keygen!({ name: 'bridge' })) as { keyId: string };
      const trusted = (await api.trustList!()) as Array<{ keyId: string }>;
      const err = await api.keygen!({ name: 'bridge' }).then(
        () => null,
        (e: Error & Record<string, unknown>) => ({
          isError: e instanceof Error,
          name: e.name,
          code: e.code,
          hint: e.hint,
          exitCode: e.exitCode,
          message: e.message,
        }),
      );
      return { before, made, trusted, err };
    });
    assert.equal(who.before, null);
    assert.deepEqual(
      who.trusted.map((k) => k.keyId),
      [who.made.keyId],
    );
    assert.equal(who.err?.isError, true);
    assert.equal(who.err?.name, 'BrickpostError');
    assert.equal(who.err?.code, 'IDENTITY_EXISTS');
    assert.equal(who.err?.exitCode, 2);
    assert.equal(typeof who.err?.hint, 'string');
  });

  test('a pack job reports progress events and resolves with its summary; a bad one rejects', async () => {
    const src = join(root, 'src');
    const drive = join(root, 'drive');
    mkdirSync(src);
    mkdirSync(drive);
    writeFileSync(join(src, 'a.txt'), 'bridge job\n'.repeat(20_000));
    const r = await page.evaluate(
      async ({ src, drive }) => {
        const api = (globalThis as unknown as { brickpost: Api }).brickpost;
        const events: Array<{ type: string }> = [];
        const summary = (await api.pack!('bridge-pack', { source: src, drives: [drive], recipients: [] }, (e: { type: string }) => events.push(e))) as {
          files: number;
        };
        const bad = await api.verify!('bridge-bad', { drive: src }, () => undefined).then(
          () => null,
          (e: Record<string, unknown>) => e.code,
        );
        return { files: summary.files, types: [...new Set(events.map((e) => e.type))], bad };
      },
      { src, drive },
    );
    assert.equal(r.files, 1);
    assert.ok(r.types.includes('progress'), JSON.stringify(r.types));
    assert.equal(r.bad, 'NOT_A_DRIVE');
  });

  test('a reload without the token is let in by the session cookie', async () => {
    await page.reload();
    await page.waitForFunction(() => (globalThis as unknown as { brickpost?: unknown }).brickpost !== undefined);
    const n = await page.evaluate(async () => ((await (globalThis as unknown as { brickpost: Api }).brickpost.trustList!()) as unknown[]).length);
    assert.equal(n, 1);
    const other = await browser.newPage();
    try {
      const res = await other.goto(server.url.replace(/\?token=.*/, ''));
      assert.equal(res?.status(), 403, 'another browser context has no cookie');
    } finally {
      await other.close();
    }
  });
});
