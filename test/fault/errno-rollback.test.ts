/**
 * I/O errors during rollback are the environment, not a bug: each errno is
 * injected by the fault shim at the calls of each phase of
 * `rollback DEST --to 1` from seq 2 (DEST's tree moved out and back from the undo area,
 * the state folder, the home's key files). Each run must exit 5 with the
 * errno's code, a message naming the path and the call, and a hint; DEST
 * must be at seq 2's tree (or the error must say to run rollback again to
 * finish), and rollback without the fault must then give seq 1's tree.
 * See matrix.ts; every call is failed in errno-sweep.test.ts (npm run soak).
 *
 * SQLite files (the catalog, DEST's journal.sqlite, their -wal, -shm and
 * -journal files) and the lock files are not failed here: the catalog's and
 * journal's database errors and the lock have tests of their own.
 */
import { beforeAll, describe, test } from 'vitest';
import { tempDir } from '../support.js';
import { rollbackTo1 } from './dest-cases.js';
import { runMatrix } from './matrix.js';
import { buildWorld, type World } from './world.js';

describe('errno during rollback', () => {
  let w: World;
  beforeAll(() => {
    w = buildWorld(tempDir('bp-errno-rollback-'));
  });

  test('seq 2 back to seq 1', async (t) => {
    await runMatrix(t, rollbackTo1(w));
  });
});
