/**
 * I/O errors while reading and repairing a drive are the environment, not
 * a bug: each errno is injected by the fault shim at the calls of verify
 * (the tag files, the payload, the custody log it appends to), verify
 * --deep (the packs, read in worker threads), repair (reading and
 * rewriting a damaged pack) and extract (the drive, the target folder).
 * Each run must exit 5 with the errno's code, a message naming the path
 * and the call, and a hint (for a drive that fails to read: what to check
 * and which commands can help this shipment); the same command without
 * the fault must then succeed. See matrix.ts; every call is failed in
 * errno-sweep.test.ts (npm run soak).
 *
 * SQLite files (the catalog and its -wal, -shm and -journal files) are not
 * failed here: the catalog's database errors have tests of their own.
 */
import { beforeAll, describe, test } from 'vitest';
import { join } from 'node:path';
import { sh, tempDir } from '../support.js';
import { damage, extractMatrix, repairMatrix, verifyMatrix } from './drive-cases.js';
import { runMatrix } from './matrix.js';
import { buildWorld, type World } from './world.js';

describe('errno on a drive', () => {
  let w: World;
  let damaged: string;
  beforeAll(() => {
    w = buildWorld(tempDir('bp-errno-drive-'), 'drive1');
    damaged = join(w.root, 'damaged');
    sh('cp', ['-a', w.drive1, damaged]);
    damage(damaged);
  });

  test('verify', async (t) => {
    await runMatrix(t, verifyMatrix(w, false));
  });

  test('verify --deep', async (t) => {
    await runMatrix(t, verifyMatrix(w, true));
  });

  test('repair of a bad block', async (t) => {
    await runMatrix(t, repairMatrix(w, damaged));
  });

  test('extract', async (t) => {
    await runMatrix(t, extractMatrix(w));
  });
});
