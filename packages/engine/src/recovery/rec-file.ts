/**
 * Recovery files on disk (§recovery-data): the header, the recovery blocks
 * (B bytes each, group by group, row by row), a copy of the header and the
 * header's length as u32le, so that either copy of the header is enough.
 */
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SeqWriter } from '../io/seq-writer.js';
import { toEnvironmentError } from '../io/errors.js';
import { makeFolders } from '../io/folders.js';
import { readAt, type OnReadError } from './bag-io.js';
import { checkVersion, decodeHeader, encodeHeader, HEADER_PREFIX, headerIntact, headerLength, type WindowHeader } from './header.js';
import { recoveryPath } from './params.js';

/** A recovery file as the payload manifest lists it. */
export interface RecoveryFileInfo {
  /** Bag path, data/recovery/DDD/WWWWWW.rec. */
  path: string;
  size: number;
  sha256: string;
}

/** A recovery file's header as read back. */
export interface ReadHeader {
  header: WindowHeader;
  /** Offset of recovery block 0: the header's length. */
  blocksAt: number;
  /** True when the first copy was damaged and the copy at the end was used. */
  firstCopyDamaged: boolean;
}

/**
 * Writes window `header.window`'s recovery file, fsynced, and returns what
 * the payload manifest needs. `blocks` are the recovery blocks in file order.
 * Creates the DDD folder when needed.
 * @throws BrickpostError NO_SPACE, PERMISSION, IO, LIMIT_EXCEEDED (header over 16 MiB)
 */
export async function writeWindowFile(bagDir: string, header: WindowHeader, blocks: Buffer[]): Promise<RecoveryFileInfo> {
  const path = recoveryPath(header.window);
  const abs = join(bagDir, path);
  const head = encodeHeader(header);
  try {
    await makeFolders(dirname(abs));
  } catch (e) {
    throw toEnvironmentError(e, `cannot create the folder of ${path}`, { on: 'drive' });
  }
  const out = await SeqWriter.create(abs, { on: 'drive' });
  try {
    await out.write(head);
    for (const b of blocks) await out.write(b);
    await out.write(head);
    const tail = Buffer.alloc(4);
    tail.writeUInt32LE(head.length);
    await out.write(tail);
    const sha256 = await out.close();
    return { path, size: out.size, sha256 };
  } catch (e) {
    await out.abort();
    throw e;
  }
}

/**
 * Reads and decodes the header of an open recovery file: the first copy,
 * else the copy at the end. Returns undefined when neither copy is intact
 * (the window's recovery data is lost).
 * A copy that cannot be read (a bad sector) counts as damaged (`onError` hears of it).
 * @throws BrickpostError MALFORMED, UNSAFE_PATH, UNSUPPORTED_VERSION (an
 * intact header that is not acceptable)
 */
export async function readWindowHeader(fh: FileHandle, size: number, name: string, onError?: OnReadError): Promise<ReadHeader | undefined> {
  const first = await copyAt(fh, size, 0, undefined, onError);
  if (first) return { header: decodeHeader(first, name), blocksAt: first.length, firstCopyDamaged: false };
  const tail = Buffer.alloc(4);
  const length = size >= 4 && (await readAt(fh, tail, size - 4, onError)) === 4 ? tail.readUInt32LE(0) : size;
  const copy = length <= size - 4 ? await copyAt(fh, size - 4, size - 4 - length, length, onError) : undefined;
  if (copy) return { header: decodeHeader(copy, name), blocksAt: copy.length, firstCopyDamaged: true };
  const prefix = Buffer.alloc(HEADER_PREFIX);
  if ((await readAt(fh, prefix, 0)) === HEADER_PREFIX) checkVersion(prefix, name);
  return undefined;
}

/** An intact header copy at `at` (of the announced length, or `expect`), or undefined. */
async function copyAt(fh: FileHandle, end: number, at: number, expect?: number, onError?: OnReadError): Promise<Buffer | undefined> {
  if (end - at < HEADER_PREFIX) return undefined;
  const prefix = Buffer.alloc(HEADER_PREFIX);
  if ((await readAt(fh, prefix, at, onError)) !== HEADER_PREFIX) return undefined;
  const length = headerLength(prefix);
  if (length === undefined || (expect !== undefined && length !== expect) || at + length > end) return undefined;
  const b = Buffer.alloc(length);
  return (await readAt(fh, b, at, onError)) === length && headerIntact(b) ? b : undefined;
}
