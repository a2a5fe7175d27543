import { open } from 'node:fs/promises';
import { BrickpostError, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';

/**
 * Reads a small file from a drive, refusing it when larger than `max` bytes
 * before reading it (a drive is untrusted input).
 * @throws BrickpostError FILE_MISSING, LIMIT_EXCEEDED, IO
 */
export async function readLimited(path: string, max: number, what: string): Promise<Buffer> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new BrickpostError('FILE_MISSING', `${what} ${quote(path)} is missing`, { path });
    throw toEnvironmentError(e, `cannot open ${what}`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new BrickpostError('MALFORMED', `${what} ${quote(path)} is not a regular file`, { path });
    if (st.size > max) throw new BrickpostError('LIMIT_EXCEEDED', `${what} ${quote(path)} is ${st.size} bytes, more than the ${max} allowed`, { path });
    const buf = Buffer.alloc(st.size);
    const { bytesRead } = await fh.read(buf, 0, st.size, 0);
    return buf.subarray(0, bytesRead);
  } catch (e) {
    throw toEnvironmentError(e, `cannot read ${what}`);
  } finally {
    await fh.close();
  }
}
