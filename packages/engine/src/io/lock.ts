import { open, readFile, rm } from 'node:fs/promises';
import { BrickpostError } from '@brickpost/manifest';
import { toEnvironmentError } from './errors.js';
import { pausepoint } from './failpoint.js';

/**
 * Takes the lock file `file` (created exclusively, holding this pid) so
 * that one brickpost at a time works on what it guards; a lock left by a
 * process that is gone is taken over. Returns the release function.
 * @throws BrickpostError LOCKED (`busy` names who holds it, from the pid), PERMISSION, IO
 */
export async function pidLock(file: string, busy: (pid: number) => string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(file, 'wx', 0o600);
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      await pausepoint('lock-held');
      return async () => void (await rm(file, { force: true }));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw toEnvironmentError(e, 'cannot create the lock');
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        throw new BrickpostError('LOCKED', busy(pid), { path: file, hint: 'wait for it to finish, then retry' });
      }
      await rm(file, { force: true });
    }
  }
  throw new BrickpostError('LOCKED', busy(0), { path: file });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
