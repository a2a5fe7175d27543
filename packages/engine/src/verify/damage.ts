import { join } from 'node:path';
import { age, packPath } from '@brickpost/manifest';
import type { OpenedShipment } from '../drive/open.js';
import { sha256File } from '../io/sha256-file.js';
import { readManifest } from './manifest-stream.js';
import { PackCursor } from './pack-cursor.js';

/** Plaintext byte ranges [start, end) of a pack that cannot be read (failed authentication). */
export type Damage = Map<number, Array<[number, number]>>;

const PLAIN = 65536;

/**
 * Finds the damaged packs of a shipment (those whose SHA-256 differs from
 * the signed one) and, in each, the 64 KiB STREAM chunks that fail
 * authentication: everything else in a damaged pack is still authentic and
 * usable. A pack whose header cannot be read is damaged whole.
 */
export async function findDamage(s: OpenedShipment, identityText: string, signal?: AbortSignal): Promise<Damage> {
  const identities = age.parseIdentityFile(identityText);
  const damage: Damage = new Map();
  for (let p = 0; p < s.info.packs; p++) {
    if (signal?.aborted) break;
    const bag = s.packDirs ? s.packDirs.bags[s.packDirs.of[p]!]! : s.dir;
    const file = join(bag, packPath(p));
    if ((await sha256File(file, undefined, `pack ${packPath(p)}`).catch(() => '')) === s.payload.get(packPath(p))) continue;
    const ranges: Array<[number, number]> = [];
    let c: PackCursor;
    try {
      c = await PackCursor.open(bag, p, s.id, identities);
    } catch {
      damage.set(p, [[0, Number.MAX_SAFE_INTEGER]]);
      continue;
    }
    try {
      const n = c.streamChunks;
      for (let j = 0; j < n; j++) {
        try {
          await c.readRandom(j * PLAIN, 1);
        } catch {
          // A cut-off pack loses everything from here on.
          const end = j === n - 1 ? Number.MAX_SAFE_INTEGER : (j + 1) * PLAIN;
          const last = ranges[ranges.length - 1];
          if (last && last[1] === j * PLAIN) last[1] = end;
          else ranges.push([j * PLAIN, end]);
        }
      }
    } finally {
      await c.close();
    }
    damage.set(p, ranges.length > 0 ? ranges : [[0, 0]]);
  }
  return damage;
}

/** The paths of the files some of whose chunks lie in damaged ranges, from the manifest. */
export async function damagedFiles(s: OpenedShipment, identityText: string, damage: Damage): Promise<Set<string>> {
  const identities = age.parseIdentityFile(identityText);
  const out = new Set<string>();
  let path: string | null = null;
  const hit = (ref: readonly unknown[]): boolean => {
    if (ref.length < 5) return false;
    const [, p, off, flen] = ref as [string, number, number, number];
    return (damage.get(p) ?? []).some(([a, b]) => off < b && off + flen > a);
  };
  for await (const r of readManifest(s, identities)) {
    if (r.t === 'file') path = r.p;
    else if (r.t !== 'more') path = null;
    if ((r.t === 'file' || r.t === 'more') && path !== null && !out.has(path) && r.c.some(hit)) out.add(path);
  }
  return out;
}
