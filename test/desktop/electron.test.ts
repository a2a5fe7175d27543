/**
 * Electron smoke test: launches the desktop app with playwright-core's
 * Electron driver and checks the window's page has `window.brickpost` with
 * every API method, and no Node (`require`, `process`) in the page. Runs
 * only where the Electron binary is installed; this environment cannot
 * download it, so here it is skipped with that reason.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ALL_METHODS } from '@brickpost/desktop/host';
import { ROOT, tempDir } from '../support.js';

function electronBinary(): string | null {
  try {
    const p = createRequire(import.meta.url)('electron') as unknown;
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

test('the Electron app exposes window.brickpost and no Node to its page', async (t) => {
  const binary = electronBinary();
  if (binary === null) {
    t.skip("Electron binary not installed (downloads are not possible here): run 'node node_modules/electron/install.js' where they are");
    return;
  }
  assert.ok(existsSync(join(ROOT, 'apps', 'desktop', 'renderer', 'index.html')), 'the renderer (apps/desktop/renderer/index.html) is not there');
  const { _electron } = await import('playwright-core');
  const app = await _electron.launch({
    executablePath: binary,
    args: [join(ROOT, 'apps', 'desktop')],
    env: { ...process.env, BRICKPOST_HOME: tempDir('bp-electron-'), BRICKPOST_NODE: process.execPath },
    timeout: 60_000,
  });
  try {
    const page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
    const seen = await page.evaluate(() => {
      const w = globalThis as unknown as Record<string, unknown>;
      const api = (w.brickpost ?? {}) as Record<string, unknown>;
      return {
        host: api.host,
        functions: Object.keys(api).filter((k) => typeof api[k] === 'function'),
        require: typeof w.require,
        process: typeof w.process,
        module: typeof w.module,
      };
    });
    assert.equal(seen.host, 'electron');
    assert.deepEqual(seen.functions.sort(), [...ALL_METHODS].sort());
    assert.equal(seen.require, 'undefined');
    assert.equal(seen.process, 'undefined');
    assert.equal(seen.module, 'undefined');
    const trusted = await page.evaluate(() => (globalThis as unknown as { brickpost: { trustList(): Promise<unknown[]> } }).brickpost.trustList());
    assert.ok(Array.isArray(trusted), 'a call reaches the engine child process');
  } finally {
    await app.close();
  }
});
