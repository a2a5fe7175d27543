/**
 * The page's Content-Security-Policy without the UI server: Electron loads
 * apps/desktop/renderer/index.html from file://, where no header comes, so
 * the page carries the server's policy in a <meta> element (all of it but
 * frame-ancestors, which browsers ignore there; Electron windows are not
 * framed). Checked as text against the server's constant, then in real
 * Chromium on the file:// page: the page's own scripts and styles load
 * with no violation, an inline script and eval are refused.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'parse5';
import type { Browser } from 'playwright-core';
import { CONTENT_SECURITY_POLICY } from '@brickpost/desktop/server';
import { ROOT } from '../support.js';
import { CHROMIUM, skipReason } from '../ui/harness.js';

const PAGE = join(ROOT, 'apps', 'desktop', 'renderer', 'index.html');

type Node5 = { nodeName: string; attrs?: Array<{ name: string; value: string }>; childNodes?: Node5[] };

/** The elements of <head>, in order. */
function headElements(html: string): Node5[] {
  const doc = parse(html) as unknown as Node5;
  const htmlEl = doc.childNodes!.find((n) => n.nodeName === 'html')!;
  return htmlEl.childNodes!.find((n) => n.nodeName === 'head')!.childNodes!.filter((n) => !n.nodeName.startsWith('#'));
}

const attr = (n: Node5, name: string): string | undefined => n.attrs?.find((a) => a.name === name)?.value;
const directives = (policy: string): string[] =>
  policy
    .split(';')
    .map((d) => d.trim().replace(/\s+/g, ' '))
    .filter(Boolean)
    .sort();

describe('the page CSP without a server (Electron)', () => {
  test("index.html's meta policy is the server's, less frame-ancestors, and comes before every script and stylesheet", () => {
    const head = headElements(readFileSync(PAGE, 'utf8'));
    const metas = head.filter((n) => n.nodeName === 'meta' && attr(n, 'http-equiv')?.toLowerCase() === 'content-security-policy');
    assert.equal(metas.length, 1);
    const expected = directives(CONTENT_SECURITY_POLICY).filter((d) => !d.startsWith('frame-ancestors'));
    assert.deepEqual(directives(attr(metas[0]!, 'content') ?? ''), expected);
    const at = head.indexOf(metas[0]!);
    const firstLoad = head.findIndex((n) => n.nodeName === 'script' || n.nodeName === 'link');
    assert.ok(firstLoad > at, 'the policy applies only to what comes after it');
  });

  const skip = skipReason();
  describe.skipIf(skip)(`in Chromium from file://${skip ? ` [skipped: ${skip}]` : ''}`, () => {
    let browser: Browser;
    beforeAll(async () => {
      const { chromium } = await import('playwright-core');
      // Module scripts from file:// need this flag in Chromium; Electron allows them for its own files.
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--allow-file-access-from-files'],
      });
    });
    afterAll(async () => {
      await browser?.close();
    });

    test('own scripts and styles load with no violation; inline script and eval are refused', async () => {
      const page = await browser.newPage();
      const violations: string[] = [];
      await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
      await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.blockedURI))`);
      await page.goto(pathToFileURL(PAGE).href);
      await page.waitForFunction(() => (globalThis as unknown as { brickpost?: unknown }).brickpost !== undefined, undefined, { timeout: 15_000 });
      assert.equal(
        await page.evaluate(`[...document.styleSheets].filter((s) => s.href?.endsWith('/style.css') && s.cssRules.length > 0).length`),
        1,
        'style.css applies',
      );
      assert.equal(violations.join(', '), '', 'the page itself breaks no rule');

      const ran = await page.evaluate(`(() => {
        const s = document.createElement('script');
        s.textContent = 'window.inlineRan = true';
        document.head.append(s);
        return window.inlineRan === true;
      })()`);
      assert.equal(ran, false, 'an inline script does not run');
      // A string timer compiles its code later, in the page, where the policy applies (evaluate itself is exempt).
      await page.evaluate(`setTimeout('window.timerRan = true', 0)`);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(await page.evaluate('window.timerRan === true'), false, 'code from a string (eval) is refused');
      assert.ok(violations.includes('script-src-elem inline'), `violations seen: ${violations.join(', ')}`);
      assert.ok(violations.includes('script-src eval'), `violations seen: ${violations.join(', ')}`);
    });
  });
});
