import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { VerifyReport } from '@brickpost/engine/api';
import { reportFailure, reportLines } from '../src/report.js';

const base: VerifyReport = {
  ok: true, shipmentId: 'S1', dataset: 'survey', seq: 2, label: '', publisher: { keyId: '0123456789ABCDEF', name: 'lab', trusted: true },
  signature: 'valid', fixity: 'ok', deep: 'skipped', filesChecked: 3, bytesChecked: 2048, chunksChecked: 0, problems: [], seconds: 1,
};

test('an ok report has no failure', () => {
  assert.equal(reportFailure(base, '/d'), undefined);
  const lines = reportLines(base);
  assert.equal(lines.at(-1), 'result     OK');
  assert.ok(lines.includes('fixity     ok  (3 files, 2.00 KiB)'));
});

test('the most serious problem sets the exit code', () => {
  const bad = (codes: string[]): VerifyReport => ({ ...base, ok: false, problems: codes.map((code) => ({ code, message: `m ${code}`, path: 'data/x' })) });
  assert.equal(reportFailure(bad(['FIXITY_MISMATCH', 'SIGNATURE_INVALID', 'UNSAFE_PATH']), '/d')?.exitCode, 3);
  assert.equal(reportFailure(bad(['FIXITY_MISMATCH', 'UNSAFE_PATH']), '/d')?.exitCode, 4);
  const f = reportFailure(bad(['FILE_MISSING', 'FIXITY_MISMATCH']), '/d');
  assert.equal(f?.exitCode, 1);
  assert.equal(f?.code, 'FILE_MISSING');
  assert.match(f?.message ?? '', /failed: 2 problems/);
  assert.equal(reportFailure({ ...base, ok: false }, '/d')?.exitCode, 1);
  const lines = reportLines(bad(['UNTRUSTED_PUBLISHER']));
  assert.ok(lines.includes('problem    UNTRUSTED_PUBLISHER  m UNTRUSTED_PUBLISHER  (data/x)'));
  assert.equal(lines.at(-1), 'result     FAILED');
});

test('drive-supplied strings cannot forge report lines', () => {
  const lines = reportLines({ ...base, label: 'x\nresult     OK', publisher: { keyId: 'K', name: 'a\u001b[1m', trusted: false } });
  assert.ok(lines.every((l) => !l.includes('\n') && !l.includes('\u001b')));
  assert.ok(lines.includes('publisher  K "a\\u001b[1m"  NOT TRUSTED'));
});
