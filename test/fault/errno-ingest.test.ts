/**
 * I/O errors during ingest are the environment, not a bug: each errno a
 * disk, a file system or the kernel can return (EIO, ENOSPC, EDQUOT, EROFS,
 * EACCES, EPERM, EBUSY, ENOTDIR, EMFILE) is injected by the fault shim
 * (shim.c) at the calls of each phase of ingest: reading the drive, staging,
 * the state folder, the commit in DEST, the home's key files; for an
 * incremental shipment also reading and retiring DEST's own files and the
 * undo area. Each run must exit 5 with the errno's code, a message naming
 * the path and the call, and a hint; DEST must be at its old tree (or the
 * error must say to run ingest again to finish), and ingest without the
 * fault must then give the new tree. See matrix.ts for how the calls are
 * chosen, and errno-sweep.test.ts for every call (npm run soak).
 *
 * SQLite files (the catalog, DEST's journal.sqlite, their -wal, -shm and
 * -journal files) and the lock files are not failed here: the catalog's and
 * journal's database errors and the lock have tests of their own.
 */
import { beforeAll, describe, test } from 'vitest';
import { tempDir } from '../support.js';
import { ingestFirst, ingestNext } from './dest-cases.js';
import { runMatrix } from './matrix.js';
import { buildWorld, type World } from './world.js';

describe('errno during ingest', () => {
  let w: World;
  beforeAll(() => {
    w = buildWorld(tempDir('bp-errno-ingest-'));
  });

  test('a first shipment into a new folder', async (t) => {
    await runMatrix(t, ingestFirst(w));
  });

  test('an incremental shipment: DEST read, retired and kept for undo', async (t) => {
    await runMatrix(t, ingestNext(w));
  });
});
