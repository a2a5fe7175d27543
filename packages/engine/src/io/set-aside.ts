import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { toEnvironmentError } from './errors.js';
import { syncDir } from './sync.js';

/**
 * Sets a damaged SQLite file aside, never deleting it: FILE becomes
 * FILE.damaged-TIME, and its -wal and -shm files follow under the same
 * name (so SQLite still reads them together). The -wal and -shm files move
 * first: a new database made at FILE must never meet the old one's log.
 * Returns the new paths, the database first.
 * @throws BrickpostError PERMISSION, NO_SPACE, IO
 */
export async function setAside(file: string, now = new Date()): Promise<string[]> {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let base = `${file}.damaged-${stamp}`;
  for (let i = 2; existsSync(base) || existsSync(`${base}-wal`); i++) base = `${file}.damaged-${stamp}-${i}`;
  const moved: string[] = [];
  try {
    for (const suffix of ['-wal', '-shm']) {
      if (!existsSync(file + suffix)) continue;
      await rename(file + suffix, base + suffix);
      moved.push(base + suffix);
    }
    await rename(file, base);
    await syncDir(dirname(file));
  } catch (e) {
    throw toEnvironmentError(e, 'cannot set the damaged database aside');
  }
  return [base, ...moved];
}
