import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BrickpostError, quote } from '@brickpost/manifest';
import { writeAtomic } from '../io/sync.js';

/** Browsers that can print a page to PDF headless, in the order they are looked for on PATH. */
export const BROWSERS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

/** How long the browser may take to print one page. */
export const PRINT_TIMEOUT_MS = 60_000;

async function executable(p: string): Promise<boolean> {
  return access(p, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * The browser that prints PDFs: $BRICKPOST_CHROMIUM, else the first of
 * BROWSERS on PATH.
 * @throws BrickpostError DEPENDENCY when there is none
 */
export async function findBrowser(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const given = env.BRICKPOST_CHROMIUM;
  if (given) {
    if (await executable(given)) return given;
    throw new BrickpostError('DEPENDENCY', `BRICKPOST_CHROMIUM names ${quote(given)}, which is not an executable file`, {
      hint: 'set it to the path of chromium or google-chrome, or unset it',
    });
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of BROWSERS) if (await executable(join(dir, name))) return join(dir, name);
  }
  throw new BrickpostError('DEPENDENCY', `no Chromium or Chrome found to print the PDF (looked for ${BROWSERS.join(', ')} on PATH)`, {
    hint: 'install chromium (e.g. apt install chromium) or set BRICKPOST_CHROMIUM to a Chrome or Chromium binary; the HTML report needs no browser',
  });
}

/**
 * Prints a standalone HTML document to a PDF file (A4, as its print style
 * says) with a headless Chromium: the PDF is the HTML report itself, laid
 * out by the same engine that shows it on screen. The page is printed from
 * a private temporary folder with a throw-away browser profile.
 * @throws BrickpostError DEPENDENCY (no browser, or it failed), CANCELLED, PERMISSION, IO
 */
export async function printPdf(html: string, out: string, signal?: AbortSignal, browser?: string): Promise<void> {
  const exe = browser ?? (await findBrowser());
  const work = await mkdtemp(join(tmpdir(), 'brickpost-pdf-'));
  try {
    const page = join(work, 'report.html');
    const pdf = join(work, 'report.pdf');
    await writeFile(page, html, { mode: 0o600 });
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-sync',
      '--disable-dev-shm-usage',
      `--user-data-dir=${join(work, 'profile')}`,
      '--no-pdf-header-footer',
      `--print-to-pdf=${pdf}`,
      pathToFileURL(page).href,
    ];
    await run(exe, args, signal);
    const bytes = await readFile(pdf).catch(() => null);
    if (!bytes || bytes.subarray(0, 5).toString('latin1') !== '%PDF-') {
      throw new BrickpostError('DEPENDENCY', `${quote(exe)} did not print a PDF`, {
        hint: 'check that the browser runs headless here (try it with --headless --print-to-pdf), or use --html only',
      });
    }
    await writeAtomic(out, bytes);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Runs the browser to its end, with a time limit; keeps the end of its stderr for the error. */
function run(exe: string, args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new BrickpostError('CANCELLED', 'printing the PDF was cancelled'));
    const child = spawn(exe, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: process.platform !== 'win32' });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
    });
    let why: BrickpostError | null = null;
    const stop = (e: BrickpostError): void => {
      why = e;
      try {
        // The browser starts helper processes; end its whole group.
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(
      () => stop(new BrickpostError('DEPENDENCY', `${quote(exe)} did not print the PDF within ${PRINT_TIMEOUT_MS / 1000} s`)),
      PRINT_TIMEOUT_MS,
    );
    const onAbort = (): void => stop(new BrickpostError('CANCELLED', 'printing the PDF was cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(
        new BrickpostError('DEPENDENCY', `cannot run ${quote(exe)}: ${e.message}`, { hint: 'set BRICKPOST_CHROMIUM to a working Chrome or Chromium binary' }),
      );
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (why) return reject(why);
      if (code !== 0) {
        const last = stderr
          .trim()
          .split('\n')
          .filter((l) => !/dbus|Fontconfig/i.test(l))
          .slice(-3)
          .join(' / ');
        return reject(new BrickpostError('DEPENDENCY', `${quote(exe)} failed to print the PDF (exit ${code})${last ? `: ${last}` : ''}`));
      }
      resolve();
    });
  });
}
