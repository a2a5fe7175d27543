import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { age, MANIFEST_PATH } from '@brickpost/manifest';
import type { Context } from '../context.js';
import type { OpenedShipment } from '../drive/open.js';
import { payloadBound } from '../drive/payload-bound.js';
import { copyDriveFile } from '../io/read-limited.js';
import { rebuildMissing } from '../drive/rebuild.js';
import { lostShares, mergedShipment, openMembers, requireRecoverable, setDrives } from '../drive/set.js';
import { Progress } from '../io/progress.js';
import { requireSpace } from '../io/space.js';
import { trustedVerifiers } from '../keys/index.js';
import type { EventSink } from '../api/index.js';
import { expansionLimit } from '../verify/expansion.js';
import { removeTree } from '../io/remove-tree.js';

/** A shipment opened for reading some of its entries, and the scratch folder that goes with it. */
export interface Readable {
  shipment: OpenedShipment;
  identities: age.Identity[];
  identityText: string;
  /** Every pack number: extract reads chunks where they are, not whole packs. */
  allPacks: Set<number>;
  close(): Promise<void>;
}

/**
 * Opens a shipment on a drive (or a drive set, a missing data drive rebuilt
 * from the parity into a scratch folder) to read entries of it: its
 * signature and tag files checked against this home's trust store, its
 * manifest copied to the scratch folder while its signed SHA-256 is
 * checked, so every pass reads the same bytes. Chunks are then read where
 * they are, each checked against its keyed id (extract and cat need no
 * whole-pack check: every byte they use is authenticated by its chunk).
 * Every read of its manifest applies `maxExpansion` (verify/expansion.ts).
 * @throws BrickpostError USAGE (a bad maxExpansion), what openShipment and openMembers throw; SET_INCOMPLETE; NO_SPACE, IO
 */
export async function openReadable(
  ctx: Context,
  drive: string,
  more: string[],
  shipment: string | undefined,
  onEvent: EventSink,
  signal?: AbortSignal,
  maxExpansion?: number | 'none',
): Promise<Readable> {
  const limit = expansionLimit(maxExpansion);
  const me = ctx.identity();
  const identities = age.parseIdentityFile(me.ageIdentity);
  const trusted = trustedVerifiers(ctx.catalog);
  let members = await openMembers([drive, ...more], trusted, shipment);
  if (members.set) {
    const found = [...(await setDrives(members.first, [], trusted))].filter(([i]) => !members.members.has(i)).map(([, dir]) => dir);
    if (found.length > 0) members = await openMembers([drive, ...more, ...found], trusted, members.first.id);
    requireRecoverable(members);
  }
  const scratch = await mkdtemp(join(tmpdir(), 'brickpost-extract-'));
  try {
    const lost = lostShares(members);
    if (lost.length > 0) {
      await requireSpace(
        scratch,
        lost.reduce((a, x) => a + x.bytes, 0),
        {
          where: 'temporary folder',
          what: `rebuilding data drive ${lost.map((x) => x.index + 1).join(', ')} from parity`,
          hint: 'free some space there, set TMPDIR to a folder with room, or give the missing drives',
        },
      );
      const p = new Progress(onEvent, 'rebuild');
      p.bytesTotal = lost.reduce((a, x) => a + x.bytes, 0);
      await rebuildMissing(members, join(scratch, 'rebuilt'), p, signal);
    }
    let s = mergedShipment(members, lost.length > 0 ? join(scratch, 'rebuilt') : null);
    const copy = join(scratch, 'manifest.age');
    await copyDriveFile(join(members.first.dir, MANIFEST_PATH), copy, s.payload.get(MANIFEST_PATH)!, MANIFEST_PATH, payloadBound(members.first, MANIFEST_PATH));
    s = { ...s, manifestFile: copy, maxExpansion: limit };
    return {
      shipment: s,
      identities,
      identityText: me.ageIdentity,
      allPacks: new Set(Array.from({ length: s.info.packs }, (_, i) => i)),
      close: () => removeTree(scratch),
    };
  } catch (e) {
    await removeTree(scratch);
    throw e;
  }
}
