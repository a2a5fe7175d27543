import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Catalog } from '../catalog/index.js';
import { sealingIds, setSealed } from '../catalog/published.js';
import { bagDir, DRIVE_DIR, PART_SUFFIX } from '../drive/layout.js';
import { toEnvironmentError } from '../io/errors.js';
import { syncDir } from '../io/sync.js';
import { pruneTrees } from './chain.js';

/**
 * A shipment's last two steps are recorded apart: 'sealing' (written and
 * signed on every drive, still under its `.part` name; synced before any
 * bag is renamed) and 'sealed' (every bag in place). A pack stopped in
 * between (killed, or a rename or the catalog failing) is finished by the
 * next pack of the dataset, never packed again: some of its bags may
 * already be in place, and a second shipment of the same sequence number
 * would fork the chain.
 */

/**
 * Marks a shipment sealed and drops the trees no later shipment can be
 * relative to (`self`: the publisher's own recipient, which never ingests).
 * @throws BrickpostError IO, NO_SPACE, LOCKED… (the catalog failing)
 */
export function markSealed(catalog: Catalog, id: string, datasetId: string, self: string): void {
  catalog.tx(() => {
    setSealed(catalog, id);
    pruneTrees(catalog, datasetId, self);
  });
}

/**
 * Finishes every shipment of the dataset a pack left 'sealing': its bags
 * still under their `.part` name on the drives given are renamed into
 * place, and it is marked sealed, with a warning saying so (and, when no
 * drive given holds it, where to rename it by hand).
 * @throws BrickpostError PERMISSION, IO (a rename), and what markSealed throws
 */
export async function finishSealing(
  catalog: Catalog,
  datasetId: string,
  roots: string[],
  self: string,
  warn: (code: string, message: string) => void,
): Promise<void> {
  const ids = sealingIds(catalog, datasetId);
  for (const id of ids) {
    let placed = 0;
    for (const root of roots) {
      const final = bagDir(root, id);
      if (!existsSync(final) && existsSync(final + PART_SUFFIX)) {
        await rename(final + PART_SUFFIX, final).catch((e: unknown) => {
          throw toEnvironmentError(e, `cannot put sealed shipment ${id} in place`);
        });
        await syncDir(join(root, DRIVE_DIR));
      }
      if (existsSync(final)) placed++;
    }
    markSealed(catalog, id, datasetId, self);
    warn(
      'SHIPMENT_FINISHED',
      placed > 0
        ? `shipment ${id} was sealed when its pack stopped; it is now in place on ${placed === 1 ? 'the drive' : `${placed} drives`} given, and this pack follows it`
        : `shipment ${id} was sealed when its pack stopped, on drives not given here: where a drive holds brickpost/${id}${PART_SUFFIX}, rename it to brickpost/${id} before sending it`,
    );
  }
}
