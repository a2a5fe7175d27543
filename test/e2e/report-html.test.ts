/**
 * The report and label renderers on their own, with hostile values in every
 * field a drive controls: the HTML parses with no error, runs no script,
 * loads nothing, and shows each value as text (controls and bidi overrides
 * made visible). The JSON Schema accepts a report and refuses deviations.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REPORT_SCHEMA, type ShipmentReport } from '@brickpost/engine/api';
import { renderLabelsHtml, renderReportHtml } from '@brickpost/engine/report-html';
import { assertStandalone, bodyText } from '../html-check.js';

const HOSTILE = `<script>alert(1)</script><img src=x onerror=alert(2)>"'&amp;`;
const INVISIBLE = 'a\u0000b\u0001c\u202Ed\uD800e\uFFFEf\u{10FFFF}';

function hostileReport(): ShipmentReport {
  return {
    format: 'brickpost-report/v1',
    kind: 'drive',
    target: `/media/${HOSTILE}`,
    created: '2026-01-02T03:04:05.678Z',
    verdict: { status: 'damaged', ok: false, title: 'Damaged', advice: 'ask the sender for a new copy' },
    shipment: {
      id: '20260102T030405Z-0a1b2c3d',
      dataset: HOSTILE,
      datasetId: '00112233aabbccdd',
      seq: 2,
      parent: `p${HOSTILE}`,
      label: INVISIBLE,
      created: '2026-01-01T00:00:00.000Z',
      files: 10,
      bytes: 12345,
      drives: 2,
      dataDrives: 1,
      parityDrives: 1,
    },
    publisher: { keyId: '0123456789ABCDEF', name: HOSTILE, trusted: true },
    signature: 'valid',
    drives: [
      { drive: 1, role: 'data', state: 'present', path: `/media/${HOSTILE}`, fixity: 'failed', files: 3, bytes: 100, problems: 1 },
      { drive: 2, role: 'parity', state: 'missing', path: null, fixity: 'skipped', files: 0, bytes: 0, problems: 0 },
    ],
    check: {
      level: 'fixity',
      fixity: 'failed',
      deep: 'skipped',
      files: 3,
      bytes: 100,
      chunksChecked: 0,
      chunksHeld: 0,
      problems: [{ code: 'FIXITY_MISMATCH', message: `</td></tr></table>${HOSTILE}`, path: `/media/x/data/packs/${HOSTILE}` }],
      problemsTotal: 1,
    },
    repair: { repairable: false, damagedBlocks: 2, files: [{ path: HOSTILE, damagedBlocks: 2, repairable: false }] },
    dest: null,
    timings: { seconds: 1.5, phases: [{ phase: 'verify', seconds: 1.25, bytes: 100, files: 3, bytesPerSecond: 80 }] },
    custody: {
      shipmentId: '20260102T030405Z-0a1b2c3d',
      drive: '1 of 2',
      bag: 'present',
      log: `/media/${HOSTILE}.custody`,
      ok: false,
      brokenAt: 2,
      problems: [{ code: 'MALFORMED', message: HOSTILE, n: 2 }],
      events: [1, 2].map((n) => ({
        n,
        type: n === 1 ? ('packed' as const) : ('verified' as const),
        at: n === 1 ? '2026-01-01T00:00:00.000Z' : HOSTILE,
        shipment: 's',
        drive: '1 of 2',
        actor: { name: HOSTILE, keyId: HOSTILE, publicKey: 'RW' + HOSTILE, trusted: n === 1, trustedAs: n === 1 ? HOSTILE : null },
        details: { note: HOSTILE, files: 3, ok: true, none: null },
        prev: '0'.repeat(64),
        hash: 'a'.repeat(64),
        source: n === 1 ? ('bag' as const) : ('drive' as const),
        valid: n === 1,
      })),
    },
    notes: [HOSTILE],
  };
}

test('a report of hostile values is inert HTML that shows them as text', () => {
  const html = renderReportHtml(hostileReport());
  assertStandalone(html);
  const text = bodyText(html);
  assert.ok(text.includes(`<script>alert(1)</script><img src=x onerror=alert(2)>"'&amp;`), 'the hostile dataset reads as typed');
  assert.ok(
    text.includes('a⟨U+0000⟩b⟨U+0001⟩c⟨U+202E⟩d⟨U+D800⟩e⟨U+FFFE⟩f⟨U+10FFFF⟩'),
    'controls, bidi overrides, lone surrogates and noncharacters are shown as code points',
  );
  assert.ok(text.includes('Damaged'), 'the verdict is shown');
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'escaped in the source');
  assert.ok(!html.includes('<script>alert'), 'never raw');
  assert.match(html, /@media print/);
  assert.match(html, /size: A4/);
});

test('drive labels of hostile values are inert HTML with an inline SVG', () => {
  const labels = [1, 2].map((drive) => ({
    shipmentId: '20260102T030405Z-0a1b2c3d',
    dataset: HOSTILE,
    label: INVISIBLE,
    drive,
    drives: 2,
    role: 'data' as const,
    publisherKeyId: '0123456789ABCDEF',
    publisherName: HOSTILE,
    date: '2026-01-02',
  }));
  const html = renderLabelsHtml(labels, '<svg viewBox="0 0 1 1"><path d="M0 0h1"/></svg>');
  const els = assertStandalone(html);
  assert.equal(els.filter((e) => e.tagName === 'svg').length, 2);
  const text = bodyText(html);
  assert.ok(text.includes('drive 1 of 2') && text.includes('drive 2 of 2'));
  assert.ok(text.includes(HOSTILE));
});

test('the JSON Schema accepts a report and refuses deviations', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const validate = ajv.compile(REPORT_SCHEMA);
  const good = hostileReport();
  assert.ok(validate(good), JSON.stringify(validate.errors));
  const bad: Array<[string, unknown]> = [
    ['unknown member', { ...good, extra: 1 }],
    ['other format', { ...good, format: 'brickpost-report/v2' }],
    ['unknown status', { ...good, verdict: { ...good.verdict, status: 'fine' } }],
    ['missing check', { ...good, check: undefined }],
    ['fractional count', { ...good, check: { ...good.check, files: 1.5 } }],
    ['lower-case key id', { ...good, publisher: { ...good.publisher, keyId: '0123456789abcdef' } }],
    ['problem code', { ...good, check: { ...good.check, problems: [{ code: 'bad code', message: 'x' }] } }],
    ['created', { ...good, created: 'yesterday' }],
  ];
  for (const [name, value] of bad) assert.equal(validate(JSON.parse(JSON.stringify(value))), false, name);
});
