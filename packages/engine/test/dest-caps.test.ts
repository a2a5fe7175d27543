// What a destination can hold apart, and the refusal of names it cannot:
// the probe runs on this machine's file system (case-sensitive here); the
// planner's decision is tested for each kind of destination by handing it
// the capabilities a case-insensitive or normalising file system reports,
// since mounting one (exFAT through FUSE, a casefold folder) is refused on
// the machines these tests run on.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANIFEST_FORMAT, type ManifestRecord } from '@brickpost/manifest';
import { probeDest, type DestCaps } from '../src/ingest/dest-caps.js';
import { DestDb } from '../src/ingest/dest-db.js';
import { planApply } from '../src/ingest/apply-plan.js';
import { leavesDest } from '../src/ingest/dest-view.js';
import { DEFAULT_POLICY } from '../src/ingest/policy.js';

const root = mkdtempSync(join(tmpdir(), 'bp-caps-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function* records(names: string[]): AsyncGenerator<ManifestRecord> {
  yield {
    t: 'shipment',
    format: MANIFEST_FORMAT,
    shipment: 'S',
    dataset: 'd',
    datasetId: 'D',
    seq: 1,
    parent: null,
    bases: [],
    against: null,
    label: '',
    created: '',
    publisher: 'P',
    secret: '',
    chunker: 'fastcdc-v1',
  };
  yield { t: 'dir', p: 'docs', mode: 0o755, mtime: '0' };
  for (const n of names) yield { t: 'file', p: `docs/${n}`, size: 0, mode: 0o644, mtime: '0', c: [] };
}

async function plan(caps: DestCaps, names: string[]): Promise<{ parent: string; names: string[] }[]> {
  const dest = mkdtempSync(join(root, 'dest-'));
  mkdirSync(join(dest, '.brickpost'));
  const db = new DestDb(join(dest, '.brickpost'));
  try {
    const p = await planApply(db, dest, 'S', records(names), { caps, policy: DEFAULT_POLICY });
    return p.collisions;
  } finally {
    db.close();
  }
}

const SENSITIVE: DestCaps = { caseInsensitive: false, normalizationInsensitive: false, windowsNames: false };

test("the probe finds this machine's file system case-sensitive and not normalising", async () => {
  const dest = mkdtempSync(join(root, 'probe-'));
  mkdirSync(join(dest, '.brickpost'));
  assert.deepEqual(await probeDest(dest, join(dest, '.brickpost'), false), SENSITIVE);
});

test('a case-sensitive destination holds case and normalisation twins apart', async () => {
  assert.deepEqual(await plan(SENSITIVE, ['README', 'caf\u00e9', 'cafe\u0301', 'readme']), []);
});

test('a case-insensitive destination refuses case twins and normalisation twins, naming each group', async () => {
  const groups = await plan({ ...SENSITIVE, caseInsensitive: true }, ['README', 'ReadMe', 'caf\u00e9', 'cafe\u0301', 'other', 'readme']);
  const seen = groups.map((g) => `${g.parent}: ${g.names.sort().join(' ')}`).sort();
  assert.deepEqual(seen, ['docs: README ReadMe readme', 'docs: cafe\u0301 caf\u00e9'].sort());
});

test('a normalising but case-sensitive destination refuses only normalisation twins', async () => {
  const groups = await plan({ ...SENSITIVE, normalizationInsensitive: true }, ['README', 'caf\u00e9', 'cafe\u0301', 'readme']);
  assert.deepEqual(
    groups.map((g) => g.names.sort()),
    [['cafe\u0301', 'caf\u00e9']],
  );
});

test('a link leaves DEST when its target is absolute, climbs above DEST or goes into .brickpost', () => {
  const cases: Array<[string, string, boolean]> = [
    ['a/l', 'x', false],
    ['a/l', '../x', false],
    ['a/l', '../../x', true],
    ['l', '../x', true],
    ['a/b/l', '../../x/../y', false],
    ['a/l', '/etc/passwd', true],
    ['a/l', '.', false],
    ['a/l', './../..', true],
    ['l', '.brickpost/state.json', true],
    ['a/l', '../.BrickPost', true],
    ['a/l', 'b//c', false],
  ];
  for (const [p, target, out] of cases) assert.equal(leavesDest(p, target), out, `${p} -> ${target}`);
});
