import { createHash } from 'node:crypto';

/**
 * The gear table of chunker v1: GEAR[i] is the first 4 bytes, read
 * big-endian, of SHA-256("brickpost-gear-v1" ‖ byte i), for i in 0..255.
 * Stored as signed 32-bit integers so the hot loop stays in int32 arithmetic.
 */
export const GEAR: Int32Array = buildGear();

function buildGear(): Int32Array {
  const table = new Int32Array(256);
  const prefix = Buffer.from('brickpost-gear-v1', 'ascii');
  for (let i = 0; i < 256; i++) {
    const digest = createHash('sha256').update(prefix).update(Uint8Array.of(i)).digest();
    table[i] = digest.readInt32BE(0);
  }
  return table;
}
