import { test } from 'vitest';
import assert from 'node:assert/strict';
import { isBrickpostError, type PackSummary } from '@brickpost/engine/api';
import { parseCommandLine } from '../src/args.js';
import { incrementalLine } from '../src/commands/pack.js';
import { packOptions } from '../src/pack-options.js';

test('pack --full, --rehash and --against reach PackOptions; --against with --full is refused', async () => {
  const p = parseCommandLine(['pack', 'src', '--to', 'd', '--rehash', '--against', 'mirror.bpsig']);
  assert.equal(p.kind, 'run');
  const inv = p.invocation;
  const o = await packOptions(inv);
  assert.equal(o.rehash, true);
  assert.equal(o.against, 'mirror.bpsig');
  assert.equal(o.full, undefined);
  const full = await packOptions({ values: { to: ['d'], full: true }, positionals: ['src'] });
  assert.equal(full.full, true);
  assert.equal(full.rehash, undefined);
  await assert.rejects(
    packOptions({ values: { to: ['d'], full: true, against: 'x.bpsig' }, positionals: ['src'] }),
    (e: unknown) => isBrickpostError(e, 'USAGE') && /--against and --full/.test(e.message),
  );
});

test('the incremental summary line says what was read, held and sent as deltas', () => {
  const s = {
    bases: [{ shipmentId: 'a', seq: 3 }],
    against: null,
    filesRead: 41,
    filesUnchanged: 2310,
    bytesHeld: 1.5 * 2 ** 30,
    chunksDelta: 12,
    bytesDelta: 10 * 2 ** 20,
    deltaFrameBytes: 2 ** 20,
    bytesOnDrive: 112 * 2 ** 20,
  } as PackSummary;
  assert.equal(
    incrementalLine(s),
    'incremental over seq 3: 41 files read, 2,310 unchanged (not re-read), 1.61 GB held, 10.5 MB as 1.05 MB of deltas, 117 MB on the drive',
  );
  const against = { ...s, bases: [], against: 'ab'.repeat(32), filesUnchanged: 0, chunksDelta: 0 };
  assert.equal(incrementalLine(against), `built against signature file ${'ab'.repeat(6)}…: 41 files read, 1.61 GB held, 117 MB on the drive`);
});
