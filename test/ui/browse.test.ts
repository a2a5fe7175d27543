/**
 * Filters when packing, and taking files off a drive, in Chromium against
 * the real `brickpost ui` and engine. The publisher leaves out `*.tmp`,
 * `build/` and cache folders in the options step, and the shipment lacks
 * them (`brickpost ls`). The subscriber browses the verified drive: a
 * symbolic link shows its target, names with a control character, bytes
 * that are not UTF-8 or markup show escaped as text; it opens a folder,
 * ticks a file and a folder with the keyboard, a few odd names and a link
 * pointing outside with the mouse, and extracts them: exactly those entries
 * are written, byte for byte, and the done page says what was not applied;
 * then ingests the whole drive, whose done page counts links and names what
 * was not applied.
 * The new views have a label on every control and fit at 200 % zoom.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { brickpost, publisherAndSubscriber, tempDir } from '../support.js';
import { diffTrees, fullSnapshot } from '../tree.js';
import { atStep, JOB_MS, launch, openApp, overflowsX, shot, skipReason, startUi, tabTo, type Ui, unlabelled } from './harness.js';

const skip = skipReason();

const BELL = 'bell\u0007.txt';
/** A name whose bytes are not UTF-8: "caf", 0xE9 (Latin-1 é), ".txt". */
const LATIN1 = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('.txt')]);
const MARKUP = '<img src=x onerror=alert(1)>';
/** A right-to-left override: shown as is, "evil" + U+202E + "txt.exe" reads as "eviexe.txt". */
const BIDI = 'evil\u202etxt.exe';

describe.skipIf(skip)(`taking files off a drive, and leaving files out of a shipment${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const root = tempDir('bp-ui-browse-');
  const [pub, sub, src, drive] = ['pub', 'sub', 'src', 'drive'].map((n) => join(root, n)) as [string, string, string, string];
  let browser: Browser;
  let subKeyId = '';
  const servers: Ui[] = [];

  beforeAll(async () => {
    mkdirSync(join(src, 'docs', 'deep'), { recursive: true });
    mkdirSync(join(src, 'build'));
    mkdirSync(join(src, 'cache'));
    mkdirSync(drive);
    writeFileSync(join(src, 'docs', 'a.txt'), 'alpha\n');
    writeFileSync(join(src, 'docs', 'b.txt'), 'beta\n'.repeat(1000));
    writeFileSync(join(src, 'docs', 'notes.tmp'), 'scratch\n');
    writeFileSync(join(src, 'docs', 'deep', 'c.txt'), 'gamma\n');
    writeFileSync(join(src, 'docs', 'deep', 'd.bin'), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(src, 'top.txt'), 'top\n');
    writeFileSync(join(src, 'scratch.tmp'), 'scratch\n');
    writeFileSync(join(src, 'build', 'out.bin'), 'built\n');
    writeFileSync(join(src, 'cache', 'CACHEDIR.TAG'), 'Signature: 8a477f597d28d172789f06886806bc55\n');
    writeFileSync(join(src, 'cache', 'blob'), 'cached\n');
    writeFileSync(join(src, BELL), 'ding\n');
    writeFileSync(Buffer.concat([Buffer.from(`${src}/`), LATIN1]), 'latin-1\n');
    writeFileSync(join(src, MARKUP), 'not markup\n');
    writeFileSync(join(src, BIDI), 'bidi\n');
    symlinkSync('docs/a.txt', join(src, 'to-a'));
    symlinkSync('/etc/hostname', join(src, 'outside'));
    const recipient = publisherAndSubscriber(pub, sub);
    const me = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout) as { minisignPublicKey: string; keyId: string };
    subKeyId = me.keyId;
    assert.equal(brickpost(pub, ['trust', 'add', me.minisignPublicKey, '--name', 'station', '--recipient', recipient]).code, 0);
    browser = await launch();
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await browser?.close();
  });

  test('publisher: "Leave out" patterns and cache folders are not shipped, and the done page says what was', async () => {
    const ui = await startUi(pub);
    servers.push(ui);
    const { page, errors } = await openApp(browser, ui, '#/publish');
    await atStep(page, 'source');
    await page.fill('input[name=source]', src);
    await page.click('[data-primary]');
    await atStep(page, 'estimate');
    await page.click('[data-primary]');
    await atStep(page, 'drives');
    await page.fill('input[name=add-drive]', drive);
    await page.click('button:has-text("Add folder")');
    await page.waitForSelector(`input[name=drive-choice][value="${drive}"]:checked`);
    await page.click('[data-primary]');
    await atStep(page, 'recipients');
    await page.check(`input[name=recipient][data-key-id="${subKeyId}"]`);
    await page.click('[data-primary]');

    await atStep(page, 'options');
    await page.fill('textarea[name=exclude]', '*.tmp\n\n# generated\nbuild/\n');
    await page.check('input[name=exclude-caches]');
    assert.equal(await page.isChecked('input[name=portable]'), false);
    assert.deepEqual(await unlabelled(page), []);
    await shot(page, 'publish-5-options-filters');
    await page.click('[data-primary]');
    await atStep(page, 'done', JOB_MS);
    const carries = (await page.textContent('[data-testid=carries]')) ?? '';
    // docs/a.txt, docs/b.txt, docs/deep/c.txt, docs/deep/d.bin, top.txt and the four odd names; docs, docs/deep; two links.
    assert.match(carries, /^9 files, 2 folders, 2 symbolic links, 0 hard links, 0 special files; 0 sparse files\.$/);
    assert.match((await page.textContent('.facts')) ?? '', /Left out on purpose\s*4 entries/);
    await shot(page, 'publish-7-done-entries');
    assert.deepEqual(errors, []);

    const ls = brickpost(sub, ['ls', drive]);
    assert.equal(ls.code, 0, ls.stderr);
    assert.doesNotMatch(ls.stdout, /\.tmp|build|cache/);
    assert.match(ls.stdout, /docs\/deep\/d\.bin/);
  });

  /** The subscriber wizard at the browse step of the drive. */
  async function browse(page: Page): Promise<void> {
    await atStep(page, 'drive');
    await page.fill('input[name=drive]', drive);
    await page.click('[data-primary]');
    await atStep(page, 'verdict', 60_000);
    await page.waitForSelector('[data-verdict=intact]');
    await page.click('button:has-text("Browse and take files")');
    await atStep(page, 'browse');
    await page.waitForSelector('[data-testid=listing] table');
  }

  test('subscriber: browse, tick by keyboard and mouse, extract exactly the chosen entries', async () => {
    const ui = await startUi(sub);
    servers.push(ui);
    const { page, errors } = await openApp(browser, ui, '#/receive');
    await browse(page);
    const names = await page.locator('[data-testid=listing] tr[data-name]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));
    // Folders first, then manifest order ('<' sorts before letters).
    assert.deepEqual(names, ['docs', MARKUP, '"bell\\u0007.txt"', '"caf\\xe9.txt"', '"evil\\u202etxt.exe"', 'outside', 'to-a', 'top.txt']);
    assert.match((await page.textContent('tr[data-name=to-a]')) ?? '', /link to docs\/a\.txt/);
    assert.match((await page.textContent('tr[data-name=outside]')) ?? '', /link to \/etc\/hostname/);
    const main = (await page.textContent('main')) ?? '';
    assert.ok(main.includes('"bell\\u0007.txt"') && main.includes('"caf\\xe9.txt"'), 'odd names are shown escaped');
    assert.ok(
      !main.includes('\u0007') && !main.includes('\udce9') && !main.includes('\u202e'),
      'no raw control or bidi character, nor a lone surrogate, reaches the page',
    );
    assert.equal(await page.locator('main img').count(), 0, 'a name is never markup');
    assert.deepEqual(await unlabelled(page), []);
    await shot(page, 'receive-browse-top');

    await page.click('button[aria-label="Open folder docs"]');
    await page.waitForSelector('.crumbs [aria-current=location]:has-text("docs")');
    await page.waitForSelector('tr[data-name="b.txt"]');
    assert.equal(await page.locator('tr[data-name="notes.tmp"]').count(), 0);
    // Opening a folder puts the focus on its listing; the tick boxes work with Tab and Space.
    assert.equal(await page.evaluate('document.activeElement?.classList.contains("table-wrap")'), true);
    assert.ok(await tabTo(page, 'input[data-path="docs/deep"]'), 'Tab never reached the box of docs/deep');
    await page.keyboard.press('Space');
    assert.ok(await tabTo(page, 'input[data-path="docs/b.txt"]'), 'Tab never reached the box of docs/b.txt');
    await page.keyboard.press('Space');
    assert.ok(await page.isChecked('input[data-path="docs/deep"]'));
    assert.ok(await page.isChecked('input[data-path="docs/b.txt"]'));
    assert.equal(await page.isChecked('input[data-path="docs/a.txt"]'), false);
    await shot(page, 'receive-browse-docs');

    // Inside a ticked folder everything shows ticked and fixed.
    await page.click('button[aria-label="Open folder deep"]');
    await page.waitForSelector('tr[data-name="c.txt"]');
    assert.ok(await page.isChecked('input[data-path="docs/deep/c.txt"]'));
    assert.ok(await page.isDisabled('input[data-path="docs/deep/c.txt"]'));
    await page.click('.crumbs button:has-text("Top of the shipment")');
    await page.waitForSelector('tr[data-name="top.txt"]');
    // JSON string syntax is CSS string syntax for these names: quotes and backslashes escaped.
    for (const name of ['"bell\\u0007.txt"', '"caf\\xe9.txt"', MARKUP, 'outside']) await page.check(`tr[data-name=${JSON.stringify(name)}] input[name=take]`);
    const chosen = (await page.textContent('[data-testid=chosen]')) ?? '';
    assert.match(chosen, /Chosen: 6 entries/);
    assert.ok(chosen.includes('docs/deep/') && chosen.includes('"caf\\xe9.txt"'));
    await page.click('[data-primary]');

    await atStep(page, 'take-to');
    const to = join(root, 'taken');
    await page.fill('input[name=take-to]', to);
    assert.deepEqual(await unlabelled(page), []);
    await shot(page, 'receive-take-to');
    await page.click('[data-primary]');
    await atStep(page, 'taken', JOB_MS);
    const banner = (await page.textContent('[data-testid=taken]')) ?? '';
    assert.match(banner, /^Wrote 6 files and 2 folders \(/);
    assert.ok(banner.includes(to));
    assert.match((await page.textContent('[data-testid=not-applied]')) ?? '', /Symbolic links pointing outside the tree.*: 1\./);
    assert.deepEqual(await unlabelled(page), []);
    await shot(page, 'receive-taken');

    // Exactly the chosen entries (and docs/, which holds two of them), byte for byte; the outside link not created.
    const chosenPaths = ['docs', 'docs/b.txt', 'docs/deep', 'docs/deep/c.txt', 'docs/deep/d.bin', 'bell\\u0007.txt', 'caf\\xe9.txt', MARKUP];
    const want = fullSnapshot(src);
    for (const k of [...want.entries.keys()]) if (!chosenPaths.includes(k)) want.entries.delete(k);
    assert.equal(want.entries.size, chosenPaths.length, `the source lacks some of ${chosenPaths.join(', ')}`);
    assert.deepEqual(diffTrees(want, fullSnapshot(to), { ignore: ['blocks', 'mtimeNs', 'mode'] }), []);
    const files = [...want.entries].filter(([, e]) => e.type === 'file');
    const got = fullSnapshot(to).entries;
    assert.deepEqual(
      diffTrees({ entries: new Map(files), hardLinks: [] }, { entries: new Map(files.map(([k]) => [k, got.get(k)!])), hardLinks: [] }, { ignore: ['blocks'] }),
      [],
      'files keep their mode and time',
    );

    // The drive can still be ingested whole from here; its done page counts the links and names what was not applied.
    await page.click('button:has-text("Ingest the whole shipment")');
    await atStep(page, 'dest');
    await page.fill('input[name=dest]', join(root, 'dest'));
    await page.click('[data-primary]');
    await atStep(page, 'received', JOB_MS);
    assert.match((await page.textContent('.step-body .facts')) ?? '', /2 symbolic links, 0 hard links, 0 special files/);
    assert.match((await page.textContent('[data-testid=not-applied]')) ?? '', /Symbolic links pointing outside the tree.*: 1\./);
    const list = (await page.textContent('[data-testid=not-applied-list]'))?.trim() ?? '';
    assert.ok(existsSync(list), `no list of what was not applied at ${list}`);
    assert.match(readFileSync(list, 'utf8'), /outside/);
    await shot(page, 'receive-5-done-not-applied');
    assert.deepEqual(errors, []);
  });

  test('the escaping the page uses: controls, bidi and invisible characters, bytes that are not UTF-8', async () => {
    const { page, errors } = await openApp(browser, servers[1]!, '#/');
    const cases: Array<[string, string]> = [
      ['plain name.txt', 'plain name.txt'],
      ['emoji 😀 and é', 'emoji 😀 and é'],
      ['bell\u0007', '"bell\\u0007"'],
      ['line\nbreak', '"line\\nbreak"'],
      ['next\u0085line', '"next\\u0085line"'],
      ['a\u202eb', '"a\\u202eb"'],
      ['a\u2066b\u2069', '"a\\u2066b\\u2069"'],
      ['zero\u200bwidth', '"zero\\u200bwidth"'],
      ['caf\udce9', '"caf\\xe9"'],
      ['\ud83d alone', '"\\ud83d alone"'],
      [' edge', '" edge"'],
      ['quote"d', '"quote\\"d"'],
      ['back\\xe9', '"back\\\\xe9"'],
      ['', '""'],
    ];
    // The arguments travel inside the expression (JSON escapes keep lone surrogates intact).
    const shown = await page.evaluate<string[]>(`import('/web/renderer/ui/names.js').then((m) => ${JSON.stringify(cases.map((c) => c[0]))}.map(m.printable))`);
    assert.deepEqual(
      shown,
      cases.map((c) => c[1]),
    );
    assert.deepEqual(errors, []);
  });

  test('at 200 % zoom the browse view and the folder step do not scroll sideways', async () => {
    const { page, errors } = await openApp(browser, servers[1]!, '#/receive', { viewport: { width: 640, height: 900 }, deviceScaleFactor: 2 });
    await browse(page);
    await page.click('button[aria-label="Open folder docs"]');
    await page.waitForSelector('tr[data-name="b.txt"]');
    await page.check('input[data-path="docs/b.txt"]');
    await shot(page, 'zoom-receive-browse');
    assert.equal(await overflowsX(page), false, 'the browse view overflows at 200 %');
    assert.deepEqual(await unlabelled(page), []);
    await page.click('[data-primary]');
    await atStep(page, 'take-to');
    await shot(page, 'zoom-receive-take-to');
    assert.equal(await overflowsX(page), false, 'the folder step overflows at 200 %');
    assert.deepEqual(errors, []);
  });
});
