import { constants } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import { toEnvironmentError } from './errors.js';
import { makeFolders } from './folders.js';
import { SeqWriter } from './seq-writer.js';

/**
 * How many bytes signed data allows a file to hold (drive/payload-bound.ts
 * gives a payload file's). `why` says where the number comes from, for the
 * message that refuses a larger file.
 */
export interface SizeBound {
  max: number;
  why: string;
}

/**
 * Refuses a file larger than its bound, before (or instead of) reading past it.
 * @throws BrickpostError FIXITY_MISMATCH
 */
export function checkBound(size: number, b: SizeBound | undefined, what: string, path: string, exact = true): void {
  if (b && size > b.max) {
    throw new BrickpostError('FIXITY_MISMATCH', `${what} is ${size} bytes${exact ? '' : ' or more'}, more than the ${b.max} bytes ${b.why}`, {
      path,
      hint: 'the drive was damaged or modified',
    });
  }
}

/** O_NOFOLLOW where the platform has it. O_NONBLOCK: opening a FIFO must not wait for a writer. */
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Opens a file of a drive for reading: a regular file only, never through
 * a symbolic link, and never waiting (a FIFO planted on a drive would
 * block a plain open forever).
 * @throws BrickpostError FILE_MISSING, MALFORMED (not a regular file), IO
 */
export async function openDriveFile(path: string, what: string): Promise<FileHandle> {
  let fh: FileHandle;
  try {
    fh = await open(path, FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BrickpostError('FILE_MISSING', `${what} ${quote(path)} is missing`, { path });
    if (code === 'ELOOP') throw new BrickpostError('MALFORMED', `${what} ${quote(path)} is a symbolic link, not a file`, { path });
    throw toEnvironmentError(e, `cannot open ${what}`, { on: 'drive' });
  }
  const st = await fh.stat().catch(async (e: unknown) => {
    await fh.close();
    throw toEnvironmentError(e, `cannot read ${what}`, { on: 'drive', path });
  });
  if (!st.isFile()) {
    await fh.close();
    throw new BrickpostError('MALFORMED', `${what} ${quote(path)} is not a regular file`, { path });
  }
  return fh;
}

/**
 * Reads a small file from a drive, refusing it when larger than `max` bytes
 * before reading it (a drive is untrusted input).
 * @throws BrickpostError FILE_MISSING, LIMIT_EXCEEDED, IO
 */
export async function readLimited(path: string, max: number, what: string): Promise<Buffer> {
  const fh = await openDriveFile(path, what);
  try {
    const st = await fh.stat();
    if (st.size > max) throw new BrickpostError('LIMIT_EXCEEDED', `${what} ${quote(path)} is ${st.size} bytes, more than the ${max} allowed`, { path });
    const buf = Buffer.alloc(st.size);
    const { bytesRead } = await fh.read(buf, 0, st.size, 0);
    return buf.subarray(0, bytesRead);
  } catch (e) {
    throw toEnvironmentError(e, `cannot read ${what}`, { on: 'drive', path });
  } finally {
    await fh.close();
  }
}

/**
 * Copies file `rel` of a drive (at `from`) to `to`, checking its SHA-256
 * on the bytes written, so what was copied is what was checked: one read
 * of the drive, no read back of the copy. A file larger than `bound` is
 * refused before anything is copied, and copying stops one byte past it.
 * Returns the bytes copied.
 * @throws BrickpostError FIXITY_MISMATCH, FILE_MISSING, MALFORMED, NO_SPACE, IO
 */
export async function copyDriveFile(from: string, to: string, sha256: string, rel: string, bound?: SizeBound): Promise<number> {
  try {
    await makeFolders(dirname(to), 0o700);
    await rm(to, { force: true });
  } catch (e) {
    throw toEnvironmentError(e, `cannot copy ${quote(rel)}`, { on: 'destination' });
  }
  const fh = await openDriveFile(from, quote(rel));
  let out: SeqWriter | null = null;
  let read = 0;
  try {
    checkBound((await fh.stat()).size, bound, quote(rel), from);
    out = await SeqWriter.create(to, { on: 'destination' });
    for await (const c of fh.createReadStream({ highWaterMark: 1 << 20, autoClose: false, ...(bound ? { end: bound.max } : {}) })) {
      read += (c as Buffer).length;
      checkBound(read, bound, quote(rel), from, false);
      await out.write(c as Buffer);
    }
  } catch (e) {
    await out?.abort();
    throw toEnvironmentError(e, `cannot copy ${quote(rel)}`, { on: 'drive', path: from });
  } finally {
    await fh.close();
  }
  if ((await out.close()) !== sha256) {
    await rm(to, { force: true });
    throw new BrickpostError('FIXITY_MISMATCH', `${quote(rel)} does not match its SHA-256 in the signed payload manifest`, {
      path: from,
      hint: 'the drive was damaged or modified',
    });
  }
  return read;
}
