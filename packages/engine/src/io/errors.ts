import { BrickpostError, quote } from '@brickpost/manifest';

/**
 * Maps a Node system error (ENOSPC, EACCES, EIO…) to a BrickpostError of the
 * environment category, keeping it as the cause. BrickpostErrors pass through.
 */
export function toEnvironmentError(e: unknown, what: string): BrickpostError {
  if (e instanceof BrickpostError) return e;
  const err = e as NodeJS.ErrnoException;
  const path = err.path ?? undefined;
  const where = path ? `${what}: ${quote(path)}` : what;
  switch (err.code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new BrickpostError('NO_SPACE', `${where}: no space left on device`, { cause: e, hint: 'free some space or use a larger drive' });
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new BrickpostError('PERMISSION', `${where}: permission denied${err.code === 'EROFS' ? ' (read-only file system)' : ''}`, { cause: e });
    case 'ENOENT':
      return new BrickpostError('NOT_FOUND', `${where}: no such file or directory`, { cause: e });
    default:
      return new BrickpostError('IO', `${where}: ${err.message ?? String(e)}`, { cause: e });
  }
}
