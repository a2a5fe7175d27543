import { statfs } from 'node:fs/promises';
import { BrickpostError, quote } from '@brickpost/manifest';

/**
 * Refuses a job before it writes anything when the file system holding
 * `dir` has less room than `bytes`: the message names the folder (`where`
 * says what it is), what needs the room, and the shortfall. Where free
 * space cannot be read (statfs fails), the job goes on, and a full disk
 * stops it with NO_SPACE when a write fails.
 * @throws BrickpostError NO_SPACE
 */
export async function requireSpace(dir: string, bytes: number, o: { where: string; what: string; hint?: string }): Promise<void> {
  const fs = await statfs(dir).catch(() => null);
  if (!fs) return;
  const free = fs.bavail * fs.bsize;
  if (free < bytes) {
    throw new BrickpostError('NO_SPACE', `${o.where} ${quote(dir)} has ${free} bytes free, ${o.what} needs ${bytes} (short by ${bytes - free})`, {
      path: dir,
      hint: o.hint ?? 'free some space or choose another destination',
    });
  }
}
