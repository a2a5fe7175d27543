import { closeSync, openSync, readSync } from 'node:fs';
import * as posix from '@brickpost/posix';
import { findCut } from '../chunk/index.js';
import { toFileError } from '../chunk/file.js';
import { fsPath } from '../io/fs-path.js';

/** A piece of a sparse file in order: a chunk of its data, or a hole. */
export type SparsePiece = Buffer | { hole: number };

/** Bytes read at once from a data region. */
const BLOCK = 8 << 20;

/**
 * The data regions of a file that may have holes (SEEK_DATA/SEEK_HOLE), or
 * null when it has none worth recording (one region covering the file, or
 * a system without the call): the file is then read like any other.
 * @throws BrickpostError NOT_FOUND, PERMISSION, IO
 */
export function dataRegions(abs: string, size: number): Array<[number, number]> | null {
  if (!posix.available || size === 0) return null;
  let fd: number;
  try {
    fd = openSync(fsPath(abs), 'r');
  } catch (e) {
    throw toFileError(e, abs);
  }
  try {
    const extents = posix.dataExtents(fd, size);
    return extents.length === 1 && extents[0]![0] === 0 && extents[0]![1] === size ? null : extents;
  } catch (e) {
    throw toFileError(e, abs);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a sparse file region by region and yields its pieces in order: the
 * chunks of each data region (cut by the v1 chunker, which starts afresh at
 * each region) and the holes between, so no hole is read or stored. The
 * file is taken as `size` bytes long; data past a region's end as the
 * region list said it is not read. Memory holds one block and one chunk.
 * @throws BrickpostError NOT_FOUND, PERMISSION, IO
 */
export function* sparsePieces(abs: string, size: number, regions: Array<[number, number]>): Generator<SparsePiece> {
  let fd: number;
  try {
    fd = openSync(fsPath(abs), 'r');
  } catch (e) {
    throw toFileError(e, abs);
  }
  try {
    let at = 0;
    for (const [start, length] of regions) {
      if (start > at) yield { hole: start - at };
      yield* regionChunks(fd, abs, start, length);
      at = start + length;
    }
    if (size > at) yield { hole: size - at };
  } finally {
    closeSync(fd);
  }
}

function* regionChunks(fd: number, abs: string, start: number, length: number): Generator<Buffer> {
  // Room for a block behind the unconsumed tail, which is always under one chunk (4 MiB).
  const buf = Buffer.allocUnsafeSlow(Math.min(length, BLOCK + (4 << 20)));
  let fill = 0;
  let pos = 0;
  let read = 0;
  for (;;) {
    const eof = read === length;
    const cut = findCut(buf, pos, fill, eof);
    if (cut > 0) {
      const chunk = Buffer.allocUnsafeSlow(cut);
      buf.copy(chunk, 0, pos, pos + cut);
      pos += cut;
      yield chunk;
      continue;
    }
    if (cut === 0) return;
    buf.copyWithin(0, pos, fill);
    fill -= pos;
    pos = 0;
    const want = Math.min(buf.length - fill, length - read);
    let n: number;
    try {
      n = readSync(fd, buf, fill, want, start + read);
    } catch (e) {
      throw toFileError(e, abs);
    }
    // A file that shrank reads as zeros to its stated size, as tar does.
    if (n === 0) {
      buf.fill(0, fill, fill + want);
      n = want;
    }
    fill += n;
    read += n;
  }
}
