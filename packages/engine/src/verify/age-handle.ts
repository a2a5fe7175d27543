import type { FileHandle } from 'node:fs/promises';
import { age, BrickpostError, isBrickpostError, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';

/** An opened age file on a drive: its size, file key, payload nonce and where the payload starts. */
export interface AgeHandle {
  size: number;
  fileKey: Buffer;
  nonce: Buffer;
  payloadStart: number;
  /** The bytes read to find the header (at least header and nonce). */
  head: Buffer;
}

/**
 * Reads an age file's header from an open handle and unwraps its file key
 * with the given identities (age spec §header). Every message names the
 * file (`name`, its bag path); `path` is the file's, for the error's path.
 * A drive's age files are binary (FORMAT.md §encryption): an ASCII-armored
 * one is refused, not decoded.
 * @throws BrickpostError MALFORMED (also armored), TRUNCATED, NO_MATCHING_KEY, HEADER_MAC_MISMATCH; IO… when it cannot be read
 */
export async function openAgeHandle(fh: FileHandle, name: string, identities: age.Identity[], path?: string): Promise<AgeHandle> {
  let size: number;
  let head: Buffer;
  try {
    size = (await fh.stat()).size;
    head = Buffer.alloc(Math.min(size, age.MAX_HEADER_BYTES + age.PAYLOAD_NONCE_SIZE));
    await fh.read(head, 0, head.length, 0);
  } catch (e) {
    throw toEnvironmentError(e, `cannot read ${quote(name)}`, path !== undefined ? { path } : {});
  }
  return unwrap(head, size, name, identities, path);
}

function unwrap(head: Buffer, size: number, name: string, identities: age.Identity[], path: string | undefined): AgeHandle {
  if (age.isArmored(head)) {
    throw new BrickpostError(
      'MALFORMED',
      `${quote(name)} is an ASCII-armored age file; a drive holds binary age files only`,
      path !== undefined ? { path } : {},
    );
  }
  let parsed: ReturnType<typeof age.parseHeader>;
  try {
    parsed = age.parseHeader(head);
  } catch (e) {
    // The header parser knows bytes, not files: a cut-short header is named like any other problem of this file.
    if (isBrickpostError(e) && !e.message.includes(name))
      throw new BrickpostError(e.code, `${quote(name)}: ${e.message}`, {
        cause: e,
        ...(e.hint ? { hint: e.hint } : {}),
        ...(path !== undefined ? { path } : {}),
      });
    throw e;
  }
  const fileKey = age.unwrapFileKey(parsed, head, identities, name);
  const payloadStart = age.payloadOffset(parsed.headerLength);
  if (head.length < payloadStart) throw new BrickpostError('TRUNCATED', `${quote(name)} ends inside its age header`);
  return { size, fileKey, nonce: Buffer.from(head.subarray(parsed.headerLength, payloadStart)), payloadStart, head };
}
