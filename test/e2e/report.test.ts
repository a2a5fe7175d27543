/**
 * Reports and drive labels through the real CLI: `brickpost report` of a
 * fresh drive (HTML, PDF, JSON), deep, of a tampered copy (the failing file
 * named), as a stranger (untrusted publisher), of a drive set and of a
 * destination after ingest (then changed); `brickpost label` of a 2-drive
 * set. Every HTML parses with parse5 without error and is inert; every PDF
 * is read back with pdftotext; every JSON report validates against the
 * report's JSON Schema with ajv.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync, closeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REPORT_SCHEMA } from '@brickpost/engine/api';
import { assertStandalone, bodyText } from '../html-check.js';
import { brickpost, hasTool, lastEvent, makeDataset, publisherAndSubscriber, shipmentDir, tempDir, type Run } from '../support.js';

const validate = new Ajv2020({ allErrors: true, strict: true }).compile(REPORT_SCHEMA);
const HOSTILE_LABEL = '<script>alert("label")</script> & co';
const canPrint = hasTool('chromium', ['--version']) && hasTool('pdftotext', ['-v']);
const noPrint = canPrint ? false : 'chromium or pdftotext is not installed';

function reportOf(r: Run): Record<string, any> {
  const doc = JSON.parse(r.stdout) as Record<string, any>;
  assert.ok(validate(doc), `the report matches its JSON Schema: ${JSON.stringify(validate.errors)}`);
  return doc;
}

function pdfText(file: string): string {
  assert.equal(readFileSync(file).subarray(0, 5).toString('latin1'), '%PDF-');
  const r = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe('brickpost report and label', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const set = join(root, 'set');
  const dest = join(root, 'dest');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  let id = '';
  let setId = '';

  beforeAll(() => {
    makeDataset(src, '2M', 21);
    const recipient = publisherAndSubscriber(pub, sub);
    for (const d of [drive, join(set, 'd1'), join(set, 'd2')]) mkdirSync(d, { recursive: true });
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'survey', '--label', HOSTILE_LABEL, '--json']);
    assert.equal(p.code, 0, p.stderr);
    id = lastEvent(p).result.shipmentId;
    const s = brickpost(pub, ['pack', src, '--to', join(set, 'd1'), '--to', join(set, 'd2'), '--recipient', recipient, '--dataset', 'survey-set', '--json']);
    assert.equal(s.code, 0, s.stderr);
    setId = lastEvent(s).result.shipmentId;
  });

  test.skipIf(noPrint)(`a fresh drive: genuine and intact, as HTML, PDF and JSON${noPrint ? ` [skipped: ${noPrint}]` : ''}`, () => {
    const html = join(root, 'fresh.html');
    const pdf = join(root, 'fresh.pdf');
    const r = brickpost(sub, ['report', drive, '--html', html, '--pdf', pdf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const rep = reportOf(r);
    assert.deepEqual(
      [rep.kind, rep.verdict.status, rep.verdict.title, rep.signature, rep.publisher.trusted],
      ['drive', 'intact', 'Genuine and intact', 'valid', true],
    );
    assert.deepEqual(
      [rep.shipment.id, rep.shipment.dataset, rep.shipment.seq, rep.shipment.parent, rep.shipment.label],
      [id, 'survey', 1, null, HOSTILE_LABEL],
    );
    assert.deepEqual(
      rep.drives.map((d: any) => [d.drive, d.state, d.fixity]),
      [[1, 'present', 'ok']],
    );
    assert.equal(rep.check.fixity, 'ok');
    assert.ok(rep.timings.phases.some((p: any) => p.phase === 'verify' && p.bytes === rep.check.bytes && p.bytesPerSecond > 0));
    assert.ok(
      rep.custody?.events.some((e: any) => e.type === 'packed'),
      'the custody log is in the report',
    );

    const page = readFileSync(html, 'utf8');
    assertStandalone(page);
    const text = bodyText(page);
    for (const want of ['Genuine and intact', id, HOSTILE_LABEL, 'Custody log', 'packed']) assert.ok(text.includes(want), `the page shows ${want}`);
    assert.ok(!page.includes('<script>alert'), 'the label is escaped');
    const printed = pdfText(pdf);
    assert.ok(printed.includes(id), 'the PDF text holds the shipment id');
    assert.ok(printed.includes('Genuine and intact'));
  });

  test('deep: every chunk decrypted and re-hashed', () => {
    const rep = reportOf(brickpost(sub, ['report', drive, '--deep', '--json']));
    assert.deepEqual([rep.check.level, rep.check.deep, rep.verdict.status], ['deep', 'ok', 'intact']);
    assert.ok(rep.check.chunksChecked > 0);
    assert.ok(rep.timings.phases.some((p: any) => p.phase === 'deep-verify'));
  });

  test('a tampered drive: damaged, and the failing file is named', () => {
    const bad = join(root, 'tampered');
    cpSync(drive, bad, { recursive: true });
    const packs = join(shipmentDir(bad), 'data', 'packs');
    const pack = join(packs, readdirSync(packs)[0]!, readdirSync(join(packs, readdirSync(packs)[0]!))[0]!);
    const fd = openSync(pack, 'r+');
    writeSync(fd, Buffer.from('tampered'), 0, 8, 200);
    closeSync(fd);
    const html = join(root, 'tampered.html');
    const r = brickpost(sub, ['report', bad, '--html', html, '--json']);
    assert.equal(r.code, 1, 'integrity exit code, as verify');
    assert.match(r.stderr, /brickpost: error: .*damaged/);
    const rep = reportOf(r);
    assert.ok(['damaged', 'repairable'].includes(rep.verdict.status), rep.verdict.status);
    assert.equal(rep.verdict.ok, false);
    const p = rep.check.problems.find((x: any) => x.code === 'FIXITY_MISMATCH');
    assert.equal(p?.path, pack);
    assert.equal(rep.drives[0].fixity, 'failed');
    const text = bodyText(readFileSync(html, 'utf8'));
    assert.ok(text.includes('Damaged') && text.includes(pack), 'the page names the verdict and the file');
  });

  test("a stranger's report: untrusted publisher", () => {
    const stranger = join(root, 'stranger');
    assert.equal(brickpost(stranger, ['keygen', '--name', 'stranger']).code, 0);
    const r = brickpost(stranger, ['report', drive, '--json']);
    assert.equal(r.code, 3, 'authenticity exit code');
    const rep = reportOf(r);
    assert.deepEqual([rep.verdict.status, rep.verdict.title, rep.signature, rep.publisher.trusted], ['untrusted', 'Untrusted publisher', 'unknown-key', false]);
  });

  test.skipIf(noPrint)(`a drive set: each drive and its fixity; labels "drive i of 2" with a QR code${noPrint ? ` [skipped: ${noPrint}]` : ''}`, () => {
    const rep = reportOf(brickpost(sub, ['report', join(set, 'd1'), '--json']));
    assert.equal(rep.shipment.id, setId);
    assert.deepEqual(
      rep.drives.map((d: any) => [d.drive, d.state, d.fixity, d.path !== null]),
      [
        [1, 'present', 'ok', true],
        [2, 'present', 'ok', true],
      ],
    );
    assert.equal(rep.verdict.status, 'intact');

    const html = join(root, 'labels.html');
    const pdf = join(root, 'labels.pdf');
    const r = brickpost(pub, ['label', join(set, 'd2'), '--html', html, '--pdf', pdf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(
      out.labels.map((l: any) => [l.drive, l.drives, l.shipmentId, l.dataset]),
      [
        [1, 2, setId, 'survey-set'],
        [2, 2, setId, 'survey-set'],
      ],
    );
    const page = readFileSync(html, 'utf8');
    const els = assertStandalone(page);
    assert.equal(els.filter((e) => e.tagName === 'svg').length, 2, 'one QR code per label, inline SVG');
    assert.ok(
      els.some((e) => e.tagName === 'path' && (e.attrs.find((a) => a.name === 'd')?.value.length ?? 0) > 100),
      'the QR code has modules',
    );
    const text = bodyText(page);
    for (const want of ['drive 1 of 2', 'drive 2 of 2', setId, out.labels[0].publisherKeyId]) assert.ok(text.includes(want), `the labels show ${want}`);
    assert.ok(pdfText(pdf).includes(setId));
  });

  test('a destination after ingest: intact, then a changed file is named', () => {
    const i = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(i.code, 0, i.stderr);
    const html = join(root, 'dest.html');
    const r = brickpost(sub, ['report', dest, '--html', html, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const rep = reportOf(r);
    assert.deepEqual([rep.kind, rep.verdict.status, rep.signature, rep.check.level, rep.shipment.id], ['dest', 'intact', 'not-checked', 'stat', id]);
    assert.deepEqual(
      rep.dest.applied.map((a: any) => a.shipmentId),
      [id],
    );
    assert.ok(rep.check.files > 0);
    const page = readFileSync(html, 'utf8');
    assertStandalone(page);
    assert.ok(bodyText(page).includes('Shipments applied to the destination'));

    const victim = findFile(dest);
    appendFileSync(victim, 'changed');
    const d = brickpost(sub, ['report', dest, '--deep', '--json']);
    assert.equal(d.code, 1, d.stderr);
    const changed = reportOf(d);
    assert.deepEqual([changed.verdict.status, changed.verdict.title, changed.check.level], ['differs', 'Differs from its shipment', 'deep']);
    assert.ok(
      changed.check.problems.some((p: any) => p.path === relative(dest, victim)),
      JSON.stringify(changed.check.problems),
    );
  });

  test('--pdf without a browser: DEPENDENCY (exit 5) naming what to install, before any work', () => {
    const r = brickpost(sub, ['report', drive, '--pdf', join(root, 'none.pdf')], { env: { ...process.env, PATH: '/nonexistent', BRICKPOST_CHROMIUM: '' } });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /no Chromium or Chrome found/);
    assert.match(r.stderr, /install chromium/);
    assert.equal(existsSync(join(root, 'none.pdf')), false);
    const g = brickpost(sub, ['label', drive, '--pdf', join(root, 'none.pdf')], { env: { ...process.env, BRICKPOST_CHROMIUM: join(root, 'no-such-browser') } });
    assert.equal(g.code, 5);
    assert.match(g.stderr, /BRICKPOST_CHROMIUM/);
  });

  test('a folder that is neither a drive nor a destination: NOT_A_DRIVE (exit 2) saying both are accepted', () => {
    const r = brickpost(sub, ['report', src]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /is neither a brickpost drive .* nor a destination/);
  });

  test('the label of a one-drive shipment: "drive 1 of 1", the label escaped', () => {
    const html = join(root, 'one.html');
    const r = brickpost(sub, ['label', drive, '--html', html, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(
      out.labels.map((l: any) => [l.drive, l.drives, l.label]),
      [[1, 1, HOSTILE_LABEL]],
    );
    assert.deepEqual([out.html, out.pdf], [html, null]);
    const page = readFileSync(html, 'utf8');
    assertStandalone(page);
    const text = bodyText(page);
    assert.ok(text.includes('drive 1 of 1') && text.includes(HOSTILE_LABEL) && text.includes(id));
  });
});

/** The first regular file under `dir`, outside its .brickpost folder. */
function findFile(dir: string): string {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name === '.brickpost') continue;
    const p = join(dir, e.name);
    if (e.isFile()) return p;
    if (e.isDirectory()) {
      const f = findFile(p);
      if (f) return f;
    }
  }
  return '';
}
