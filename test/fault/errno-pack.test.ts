/**
 * I/O errors during pack are the environment, not a bug: each errno is
 * injected by the fault shim at the calls of each phase of a pack onto an
 * empty drive (reading the source, writing, syncing and renaming the
 * drive's files, the home's key files). Each run must exit 5 with the
 * errno's code, a message naming the path and the call, and a hint; no
 * drive may claim a complete shipment after a failure, and the same pack
 * without the fault must then write one that verifies, as seq 1. See
 * matrix.ts; every call is failed in errno-sweep.test.ts (npm run soak).
 *
 * SQLite files (the catalog and its -wal, -shm and -journal files) and the
 * pack lock are not failed here: the catalog's database errors and the
 * lock have tests of their own.
 */
import { beforeAll, describe, test } from 'vitest';
import { tempDir } from '../support.js';
import { packMatrix } from './drive-cases.js';
import { runMatrix } from './matrix.js';
import { buildWorld, type World } from './world.js';

describe('errno during pack', () => {
  let w: World;
  beforeAll(() => {
    w = buildWorld(tempDir('bp-errno-pack-'), 'homes');
  });

  test('a first shipment onto an empty drive', async (t) => {
    await runMatrix(t, packMatrix(w));
  });
});
