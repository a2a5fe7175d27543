import { createHash } from 'node:crypto';
import { quote } from '@brickpost/manifest';
import { toEnvironmentError } from './errors.js';
import { checkBound, openDriveFile, type SizeBound } from './read-limited.js';

/**
 * SHA-256 of a file of a drive, read in large blocks (a regular file only:
 * openDriveFile). With a bound, a file larger than it is refused before it
 * is read, and reading stops one byte past it (a file that grows meanwhile).
 * @throws BrickpostError FILE_MISSING, MALFORMED, FIXITY_MISMATCH (past the bound), IO
 */
export async function sha256File(path: string, onBytes?: (n: number) => void, what = 'payload file', bound?: SizeBound): Promise<string> {
  const h = createHash('sha256');
  const fh = await openDriveFile(path, what);
  try {
    const named = `${what} ${quote(path)}`;
    if (bound) checkBound((await fh.stat()).size, bound, named, path);
    let read = 0;
    for await (const chunk of fh.createReadStream({ highWaterMark: 4 << 20, autoClose: false, ...(bound ? { end: bound.max } : {}) })) {
      read += (chunk as Buffer).length;
      checkBound(read, bound, named, path, false);
      h.update(chunk as Buffer);
      onBytes?.((chunk as Buffer).length);
    }
  } catch (e) {
    throw toEnvironmentError(e, `cannot read ${what} ${quote(path)}`, { on: 'drive', path });
  } finally {
    await fh.close();
  }
  return h.digest('hex');
}
