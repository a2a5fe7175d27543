import { copyFile, open, readFile, rm, truncate as truncatePath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packPath } from '@brickpost/manifest';
import { ageLayout } from './age-file.js';

/**
 * Small edits of files on a crafted (or real) drive, the damage and
 * tampering a shipment must survive being checked against. Offsets below
 * zero count from the end of the file.
 */

function at(offset: number, size: number): number {
  const o = offset < 0 ? size + offset : offset;
  if (o < 0 || o >= size) throw new RangeError(`offset ${offset} is outside a file of ${size} bytes`);
  return o;
}

/** XORs the byte at `offset` with `mask` (default 0x01). Throws RangeError outside the file. */
export async function flipByte(file: string, offset: number, mask = 0x01): Promise<void> {
  const fh = await open(file, 'r+');
  try {
    const size = (await fh.stat()).size;
    const o = at(offset, size);
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, o);
    b[0]! ^= mask;
    await fh.write(b, 0, 1, o);
  } finally {
    await fh.close();
  }
}

/** Cuts a file to `size` bytes; a negative size removes that many bytes from the end. */
export async function truncateFile(file: string, size: number): Promise<void> {
  const fh = await open(file, 'r');
  const current = (await fh.stat()).size;
  await fh.close();
  await truncatePath(file, size < 0 ? Math.max(0, current + size) : size);
}

/** Removes a file (it must exist). */
export async function deleteFile(file: string): Promise<void> {
  await rm(file);
}

/** Appends bytes to a file, creating it if needed. */
export async function appendBytes(file: string, bytes: Uint8Array): Promise<void> {
  await writeFile(file, bytes, { flag: 'a' });
}

/**
 * Flips one bit of an age file's header MAC while keeping the base64 valid
 * (age spec §header): the file then fails the MAC check, not the parser.
 */
export async function tamperAgeMac(file: string): Promise<void> {
  const bytes = await readFile(file);
  const { macStart, macEnd } = ageLayout(bytes);
  const mac = Buffer.from(bytes.subarray(macStart, macEnd).toString('latin1'), 'base64');
  mac[0]! ^= 0x01;
  const b64 = mac.toString('base64').replace(/=+$/, '');
  await writeFile(file, Buffer.concat([bytes.subarray(0, macStart), Buffer.from(b64, 'latin1'), bytes.subarray(macEnd)]));
}

/** Byte offset of an age file's payload (after header and nonce), for flips inside the ciphertext. */
export async function payloadStart(file: string): Promise<number> {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(Math.min((await fh.stat()).size, 64 << 10));
    await fh.read(head, 0, head.length, 0);
    return ageLayout(head).payloadStart;
  } finally {
    await fh.close();
  }
}

/**
 * Swaps sealed STREAM chunks `a` and `b` (64 KiB + 16 bytes each, counted
 * from the payload start) of an age file: every byte stays authentic on its
 * own, only the order changes.
 */
export async function swapStreamChunks(file: string, a: number, b: number): Promise<void> {
  const sealed = 65536 + 16;
  const start = await payloadStart(file);
  const fh = await open(file, 'r+');
  try {
    const size = (await fh.stat()).size;
    if (start + (Math.max(a, b) + 1) * sealed > size) throw new Error(`${file} has fewer than ${Math.max(a, b) + 1} full STREAM chunks`);
    const x = Buffer.alloc(sealed);
    const y = Buffer.alloc(sealed);
    await fh.read(x, 0, sealed, start + a * sealed);
    await fh.read(y, 0, sealed, start + b * sealed);
    await fh.write(y, 0, sealed, start + a * sealed);
    await fh.write(x, 0, sealed, start + b * sealed);
  } finally {
    await fh.close();
  }
}

/** Puts pack `fromIndex` of another bag in place of pack `index` of this one. */
export async function replacePack(bagDir: string, index: number, fromBagDir: string, fromIndex = index): Promise<void> {
  await copyFile(join(fromBagDir, packPath(fromIndex)), join(bagDir, packPath(index)));
}
