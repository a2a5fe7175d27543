/**
 * Drives that make much of little, validly signed by a trusted publisher:
 * one file that names one stored chunk a great many times (reference
 * amplification). Written with the crafting writer of
 * `@brickpost/engine/testing`; the manifest is built as bytes, a line of
 * 1024 refs repeated, so millions of refs cost the test little.
 */
import { mkdirSync } from 'node:fs';
import { Compressor } from 'zstd-napi';
import { craftShipment, type PartyKeys } from '@brickpost/engine/testing';

/** Refs per record (FORMAT.md §9.8). */
const PER = 1024;

/** Deterministic bytes that zstd cannot shrink (so the pack is as large as the chunk). */
export function noise(n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/**
 * A drive at `drive` whose shipment has one file, big.bin, made of the
 * chunk `data` named `refs` times. Returns the bag folder and its size on
 * the drive (Payload-Oxum bytes).
 */
export async function amplifiedDrive(drive: string, self: PartyKeys, refs: number, data: Buffer): Promise<{ bag: string; stored: number; bytes: number }> {
  mkdirSync(drive, { recursive: true });
  const bytes = refs * data.length;
  const s = await craftShipment({
    drive,
    signingKey: self.signingKey,
    recipients: [self.recipient],
    chunks: [['big', { data }]],
    manifest: (l) => {
      const ref = JSON.stringify(l.refs.get('big'));
      const nl = (t: string): Buffer => Buffer.from(`${t}\n`);
      const first = Math.min(PER, refs);
      const parts = [
        nl(JSON.stringify(l.header)),
        nl(`{"t":"file","p":"big.bin","size":${bytes},"mode":420,"mtime":"0","c":[${Array(first).fill(ref).join(',')}]}`),
      ];
      const full = nl(`{"t":"more","c":[${Array(PER).fill(ref).join(',')}]}`);
      for (let left = refs - first; left > 0; left -= PER) parts.push(left >= PER ? full : nl(`{"t":"more","c":[${Array(left).fill(ref).join(',')}]}`));
      for (const p of l.packs) parts.push(nl(JSON.stringify(p)));
      parts.push(nl(JSON.stringify({ t: 'end', dirs: 0, files: 1, bytes, chunks: refs, packs: l.packs.length })));
      return Buffer.concat(parts);
    },
    manifestFrames: (text) => {
      const z = new Compressor();
      z.setParameters({ compressionLevel: 3, contentSizeFlag: true });
      return z.compress(text);
    },
  });
  return { bag: s.dir, stored: s.info.payloadBytes, bytes };
}

/**
 * A drive at `drive` whose shipment (manifest v2) has one sparse file,
 * disk.img, of `size` bytes: a hole, the chunk `data` at offset `at`, and
 * a hole to its end. Stored, it is about as large as `data`.
 */
export async function sparseDrive(drive: string, self: PartyKeys, size: number, at: number, data: Buffer): Promise<{ bag: string }> {
  mkdirSync(drive, { recursive: true });
  const s = await craftShipment({
    drive,
    signingKey: self.signingKey,
    recipients: [self.recipient],
    manifestVersion: 2,
    chunks: [['data', { data }]],
    manifest: (l) => [
      JSON.stringify(l.header),
      JSON.stringify({ t: 'file', p: 'disk.img', size, mode: 420, mtime: '0', c: [[at], l.refs.get('data'), [size - at - data.length]] }),
      ...l.packs.map((p) => JSON.stringify(p)),
      JSON.stringify({ t: 'end', dirs: 0, files: 1, links: 0, hard: 0, specials: 0, bytes: size, chunks: 1, packs: l.packs.length }),
    ],
  });
  return { bag: s.dir };
}
