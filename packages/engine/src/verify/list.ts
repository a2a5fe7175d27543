import type { ListEntry } from '../api.js';
import type { Context } from '../context.js';
import { findShipment } from '../drive/layout.js';
import { openShipment } from '../drive/open.js';
import { trustedVerifiers } from '../keys/index.js';
import { readManifest } from './manifest-stream.js';

/**
 * Lists a shipment's entries in manifest order, streaming (needs this home's
 * age identity; the shipment must be signed by a trusted publisher).
 * @throws BrickpostError as openShipment and readManifest do.
 */
export async function* list(ctx: Context, opts: { drive: string; shipment?: string }): AsyncGenerator<ListEntry> {
  const ids = ctx.identity().ageIdentities;
  const found = await findShipment(opts.drive, opts.shipment);
  const s = await openShipment(found.id, found.dir, trustedVerifiers(ctx.catalog));
  for await (const r of readManifest(s, ids)) {
    if (r.t === 'dir') yield { type: 'dir', path: r.p, size: 0, mode: r.mode, mtimeNs: r.mtime };
    else if (r.t === 'file') yield { type: 'file', path: r.p, size: r.size, mode: r.mode, mtimeNs: r.mtime };
  }
}
