import type { age, ManifestRecord } from '@brickpost/manifest';
import type { ListEntry } from '../api/index.js';
import type { Context } from '../context.js';
import { findShipment } from '../drive/layout.js';
import { openShipment, type OpenedShipment } from '../drive/open.js';
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
  yield* listOpened(await openShipment(found.id, found.dir, trustedVerifiers(ctx.catalog)), ids);
}

/**
 * Lists an opened shipment's entries in manifest order, streaming.
 * @throws BrickpostError as readManifest does.
 */
export async function* listOpened(s: OpenedShipment, ids: age.Identity[]): AsyncGenerator<ListEntry> {
  // A file is yielded once its `more` records are read: the last may carry its `changing` mark.
  let file: ListEntry | null = null;
  for await (const r of readManifest(s, ids)) {
    if (r.t === 'more') {
      if (r.changing && file) file.changing = true;
      continue;
    }
    if (file) yield file;
    file = null;
    const e = listEntry(r);
    if (e?.type === 'file') file = e;
    else if (e) yield e;
  }
  if (file) yield file;
}

/** The listing of one record, or null for records that are not entries. */
export function listEntry(r: ManifestRecord): ListEntry | null {
  switch (r.t) {
    case 'dir':
      return { type: 'dir', path: r.p, size: 0, mode: r.mode, mtimeNs: r.mtime, ...owner(r.o) };
    case 'file':
      return {
        type: 'file',
        path: r.p,
        size: r.size,
        mode: r.mode,
        mtimeNs: r.mtime,
        ...(r.c.some((c) => c.length === 1) ? { sparse: true } : {}),
        ...owner(r.o),
        ...(r.changing ? { changing: true } : {}),
      };
    case 'link':
      return { type: 'link', path: r.p, size: 0, mode: 0o777, mtimeNs: r.mtime, target: r.target, ...owner(r.o) };
    case 'hard':
      return { type: 'hard', path: r.p, size: 0, mode: 0, mtimeNs: '0', to: r.to };
    case 'special':
      return { type: 'special', path: r.p, size: 0, mode: r.mode, mtimeNs: r.mtime, kind: r.kind, ...(r.dev ? { dev: r.dev } : {}), ...owner(r.o) };
    default:
      return null;
  }
}

function owner(o: [number, number, string | null, string | null] | undefined): Pick<ListEntry, 'owner'> {
  return o ? { owner: { uid: o[0], gid: o[1], user: o[2], group: o[3] } } : {};
}
