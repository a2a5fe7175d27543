/**
 * Helpers of the UI tests: the real `brickpost ui` server started as a child
 * process on a temporary home (its printed URL parsed from stdout), Debian's
 * Chromium driven headless by playwright-core, and screenshots written to
 * test-artifacts/ui/.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { CLI, ROOT } from '../support.js';

export const CHROMIUM = process.env.BRICKPOST_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'ui');
const RENDERER_MAIN = join(ROOT, 'apps', 'desktop', 'renderer', 'web', 'renderer', 'main.js');

/**
 * Why the UI tests cannot run here (no Chromium), or null when they can.
 * @throws Error when the renderer is not built: the build makes it, so its absence is a failure, not a reason to skip
 */
export function skipReason(): string | null {
  if (!existsSync(RENDERER_MAIN)) throw new Error(`the renderer is not built at ${RENDERER_MAIN} (npx tsc -b makes it)`);
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (set BRICKPOST_CHROMIUM)`;
  if (spawnSync(CHROMIUM, ['--version'], { stdio: 'ignore' }).status !== 0) return `${CHROMIUM} --version fails`;
  return null;
}

export interface Ui {
  url: string;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts `brickpost --home HOME ui` and resolves with the URL it prints. */
export function startUi(home: string, env: Record<string, string> = {}): Promise<Ui> {
  const child = spawn(process.execPath, [CLI, '--home', home, 'ui', '--no-open'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (void close(), reject(new Error(`brickpost ui printed no URL in 30 s; stdout: ${out} stderr: ${err}`))), 30_000);
    const early = (code: number | null): void => {
      clearTimeout(t);
      reject(new Error(`brickpost ui exited ${code} before printing a URL; stdout: ${out} stderr: ${err}`));
    };
    child.once('exit', early);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(out);
      if (m) {
        clearTimeout(t);
        child.off('exit', early);
        resolve({ url: m[0], stderr: () => err, close });
      }
    });
  });
}

/** Headless Chromium with the flags this environment needs. */
export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export interface Opened {
  page: Page;
  /** Uncaught page errors and console errors seen so far. */
  errors: string[];
}

/** Opens the app at `hash` (e.g. '#/receive') in a new context, once the renderer is ready. */
export async function openApp(browser: Browser, ui: Ui, hash: string, opts: BrowserContextOptions = {}): Promise<Opened> {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 }, ...opts });
  const page = await ctx.newPage();
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // The browser logs every 4xx answer: /favicon.ico (its own request) and API
    // refusals the app shows as sentences (history of a folder that is no destination).
    const url = m.location().url;
    const answered = m.text().startsWith('Failed to load resource') && (url.endsWith('/favicon.ico') || /\/api\//.test(url));
    if (m.type() === 'error' && !answered) errors.push(`console: ${m.text()} (${url})`);
  });
  await page.goto(ui.url + hash);
  await page.waitForSelector('body[data-ready=true]');
  return { page, errors };
}

/** Writes a full-page screenshot to test-artifacts/ui/NAME.png. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * How long a wizard's job (pack, ingest, extract, rebuild) may take to
 * show its page: a guard against a hang, far above the seconds each takes
 * on an idle machine, since on CI the suite's other files share the disk
 * (an ingest's file-system syncs also wait for what the others wrote).
 */
export const JOB_MS = 300_000;

/** The step the wizard shows now (its data-step), after waiting for `id`. */
export async function atStep(page: Page, id: string, timeout = 30_000): Promise<void> {
  try {
    await page.waitForSelector(`section.step[data-step="${id}"]`, { timeout });
  } catch (e) {
    // What the page shows instead (a failed job's banner, a progress panel) is what a failure in CI needs to say.
    const shown = await page
      .evaluate<string>(
        `[...document.querySelectorAll('section.step')].map((s) => 'step ' + s.dataset.step + ': ' + s.innerText.replace(/\\s+/g, ' ').slice(0, 1500)).join(' | ') || 'no step'`,
      )
      .catch((f: unknown) => `(the page could not be read: ${String(f)})`);
    throw new Error(`the wizard did not reach step ${id} in ${timeout} ms; it shows ${shown}`, { cause: e });
  }
  // A locator, not a waitForFunction string: polling a string predicate needs eval, which the page's CSP refuses.
  await page.locator('.step-body > p.muted', { hasText: /^Loading/ }).waitFor({ state: 'detached', timeout });
}

/** Presses Tab until the focused element matches `selector` (at most `max` times); true when it got there. */
export async function tabTo(page: Page, selector: string, max = 15): Promise<boolean> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return true;
  }
  return false;
}

/** True when the page scrolls sideways (content wider than the viewport). */
export function overflowsX(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth + 1');
}

/** The document shown by a sandboxed frame (its srcdoc), once the frame is there. */
export async function srcdoc(page: Page, selector: string): Promise<string> {
  await page.waitForSelector(selector);
  return (await page.getAttribute(selector, 'srcdoc')) ?? '';
}

/**
 * Form controls and buttons of the page that have no accessible name (no
 * `<label for>`, aria-label or text), described by tag and name.
 */
export function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('input, textarea, select, button')]
    .filter((el) => !el.closest('[hidden]') && el.type !== 'hidden')
    .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !(el.tagName === 'BUTTON' && el.textContent.trim()))
    .map((el) => el.tagName.toLowerCase() + '[name=' + (el.getAttribute('name') || '') + ']')`);
}
