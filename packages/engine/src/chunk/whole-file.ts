import { closeSync, openSync, readSync } from 'node:fs';
import { fsPath } from '../io/fs-path.js';
import { SignatureBuilder } from '../delta/signature.js';
import { toFileError } from './file.js';
import { findCut } from './cut.js';

/** Files up to this size are read and chunked whole on a worker. */
export const WHOLE_FILE_MAX = 8 << 20;

/**
 * Reads a small file in one go (on a worker thread, synchronously) and cuts
 * it into chunks. Exactly `size` bytes are used: a file that grew is cut to
 * its scanned size and one that shrank is padded with zeros, as tar does, and
 * `changed` says which happened. With `signatureBlock > 0` it also returns
 * the bpsig1 signature of those bytes in blocks of that size.
 * @throws BrickpostError NOT_FOUND, PERMISSION, IO
 */
export function readWholeFile(path: string, size: number, signatureBlock = 0): { chunks: Buffer[]; changed?: string; signature?: Buffer } {
  const buf = Buffer.allocUnsafeSlow(size + 1);
  let got = 0;
  let fd: number;
  try {
    fd = openSync(fsPath(path), 'r');
  } catch (e) {
    throw toFileError(e, path);
  }
  try {
    for (;;) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
      if (got === buf.length) break;
    }
  } catch (e) {
    throw toFileError(e, path);
  } finally {
    closeSync(fd);
  }
  let changed: string | undefined;
  if (got > size) changed = `grew while being read; shipped its first ${size} bytes`;
  else if (got < size) {
    changed = `shrank while being read; padded with ${size - got} zero bytes`;
    buf.fill(0, got, size);
  }
  const chunks: Buffer[] = [];
  for (let pos = 0; pos < size;) {
    const cut = findCut(buf, pos, size, true);
    const c = Buffer.allocUnsafeSlow(cut);
    buf.copy(c, 0, pos, pos + cut);
    chunks.push(c);
    pos += cut;
  }
  const signature = signatureBlock > 0 ? new SignatureBuilder(signatureBlock).update(buf.subarray(0, size)).final() : undefined;
  return { chunks, ...(changed ? { changed } : {}), ...(signature ? { signature } : {}) };
}
