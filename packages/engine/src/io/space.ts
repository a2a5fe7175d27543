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

/**
 * Room on the file system holding `dir`, taken bit by bit while a job is
 * planned: refuses as soon as what is taken passes what was free, before
 * anything is written, so a plan that would need more than the disk holds
 * stops at once instead of after it is complete. Where free space cannot
 * be read, nothing is refused.
 */
export class SpaceBudget {
  /** Bytes taken so far. */
  taken = 0;

  private constructor(
    private readonly dir: string,
    private readonly free: number,
    private readonly o: { where: string; what: string; hint?: string },
  ) {}

  /** The room of `dir` now, `reserved` bytes of it already spoken for. */
  static async of(dir: string, reserved: number, o: { where: string; what: string; hint?: string }): Promise<SpaceBudget> {
    const fs = await statfs(dir).catch(() => null);
    const b = new SpaceBudget(dir, fs ? fs.bavail * fs.bsize : Infinity, o);
    b.take(reserved);
    return b;
  }

  /**
   * Takes `bytes` more.
   * @throws BrickpostError NO_SPACE
   */
  take(bytes: number): void {
    this.taken += bytes;
    if (this.taken <= this.free) return;
    throw new BrickpostError(
      'NO_SPACE',
      `${this.o.where} ${quote(this.dir)} has ${this.free} bytes free, ${this.o.what} needs at least ${this.taken} (short by ${this.taken - this.free} or more)`,
      {
        path: this.dir,
        hint: this.o.hint ?? 'free some space or choose another destination',
      },
    );
  }
}
