import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { VerifyReport } from '@brickpost/engine/api';
import { reportFailure, reportLines } from '../src/verify-report.js';

const base: VerifyReport = {
  ok: true,
  shipmentId: 'S1',
  dataset: 'survey',
  seq: 2,
  label: '',
  publisher: { keyId: '0123456789ABCDEF', name: 'lab', trusted: true },
  signature: 'valid',
  fixity: 'ok',
  deep: 'skipped',
  filesChecked: 3,
  bytesChecked: 2048,
  chunksChecked: 0,
  problems: [],
  custody: 'none',
  seconds: 1,
};

test('an ok report has no failure', () => {
  assert.equal(reportFailure(base, '/d'), undefined);
  const lines = reportLines(base);
  assert.equal(lines.at(-1), 'result     OK');
  assert.ok(lines.includes('fixity     ok  (3 drive files, 2.05 kB)'));
  const withDataset = reportLines({ ...base, datasetFiles: 1234, datasetBytes: 5_600_000_000 });
  assert.ok(withDataset.includes('fixity     ok  (3 drive files, 2.05 kB; the shipment carries 1,234 files, 5.6 GB)'), withDataset.join('\n'));
});

test('a valid signature by an untrusted key says so, with the command that trusts it', () => {
  const pk = 'RWQBI0VniavN7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const r: VerifyReport = {
    ...base,
    ok: false,
    publisher: { keyId: '0123456789ABCDEF', name: null, trusted: false, publicKey: pk },
    problems: [{ code: 'UNTRUSTED_PUBLISHER', message: 'm' }],
  };
  assert.ok(
    reportLines(r).includes(`signature  valid, by an untrusted key 0123456789ABCDEF (if it is your publisher's, trust it with: brickpost trust add ${pk})`),
  );
  assert.match(reportFailure(r, '/d')?.hint ?? '', new RegExp(`trust it: brickpost trust add ${pk}$`));
  assert.ok(reportLines({ ...r, signature: 'invalid' }).includes('signature  invalid'));
});

test('the custody line says where the verified event went, and how to sign one without an identity', () => {
  assert.equal(
    reportLines(base).find((l) => l.startsWith('custody')),
    undefined,
  );
  assert.ok(reportLines({ ...base, custody: 'drive' }).includes("custody    'verified' event added to the drive's custody log and this home's catalog"));
  assert.ok(
    reportLines({ ...base, custody: 'no-identity' }, '/my home').includes(
      "custody    not recorded: this home has no identity to sign events (brickpost --home '/my home' keygen creates one)",
    ),
  );
});

test('the repair hint names the shipment when there is a choice', () => {
  const damaged: VerifyReport = {
    ...base,
    ok: false,
    problems: [{ code: 'FIXITY_MISMATCH', message: 'm' }],
    repair: { repairable: true, damagedBlocks: 1, files: [] },
  };
  assert.match(reportFailure(damaged, '/media/my drive')?.hint ?? '', /: brickpost repair '\/media\/my drive'$/);
  assert.match(reportFailure(damaged, '/d', 'S1')?.hint ?? '', /: brickpost repair \/d --shipment S1$/);
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
