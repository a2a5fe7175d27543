import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BrickpostError, packPath, quote } from '@brickpost/manifest';
import type { Catalog } from '../catalog/catalog.js';
import { closedPacks, deleteShipment, newestUnfinished, type PublishedRow } from '../catalog/published.js';
import type { Context } from '../context.js';
import { bagDir, PART_SUFFIX } from '../drive/layout.js';
import { sha256File } from '../io/sha256-file.js';
import type { ChainPlan } from './chain.js';
import type { PackInfo } from './pack-writer.js';

/** How a shipment is laid out on its drives, kept so an interrupted pack can resume. */
export interface Layout {
  drives: number;
  parity: number;
  recovery: number;
}

/** An interrupted shipment of a dataset, as the catalog has it. */
export interface Interrupted {
  id: string;
  seq: number;
  parent: string | null;
  label: string;
  created: string;
  against: string | null;
  plan: ChainPlan;
  layout: Layout;
}

/** The dataset's shipment whose pack was interrupted (stopped on a full or failing drive, or killed), if any. */
export function findInterrupted(catalog: Catalog, datasetId: string): Interrupted | null {
  const r: PublishedRow | undefined = newestUnfinished(catalog, datasetId);
  if (!r) return null;
  const bases = JSON.parse(r.bases ?? '[]') as Array<[string, number]>;
  return {
    id: r.id,
    seq: r.seq,
    parent: r.parent,
    label: r.label,
    created: r.created_at,
    against: r.against,
    plan: { parent: r.parent, seq: r.seq, bases: bases.map(([shipmentId, seq]) => ({ shipmentId, seq })), notes: [] },
    layout: r.layout ? (JSON.parse(r.layout) as Layout) : { drives: 1, parity: 0, recovery: 0 },
  };
}

/**
 * The packs of an interrupted shipment that can be kept: closed (in the
 * catalog) and on their drive's `.part` folder whole, with the size and
 * SHA-256 recorded when they were closed. Everything else in the `.part`
 * folders (the manifest, parity, recovery data, tag files, packs cut off
 * or damaged) is removed, to be written again. Sorted by pack number.
 * @throws BrickpostError IO
 */
export async function keepPacks(catalog: Catalog, id: string, roots: string[], layout: Layout): Promise<PackInfo[]> {
  const rows = closedPacks(catalog, id);
  // A pack killed while renaming the sealed drives of a set into place left some renamed: unseal them.
  for (const root of roots) {
    const part = bagDir(root, id) + PART_SUFFIX;
    if (!(await stat(part).catch(() => null)) && (await stat(bagDir(root, id)).catch(() => null))?.isDirectory()) await rename(bagDir(root, id), part);
  }
  const kept: PackInfo[] = [];
  for (const r of rows) {
    if (r.share >= roots.length - layout.parity) continue;
    const file = join(bagDir(roots[r.share]!, id) + PART_SUFFIX, packPath(r.idx));
    const st = await stat(file).catch(() => null);
    if (st?.size !== r.size || (await sha256File(file, undefined, `pack ${r.idx}`).catch(() => '')) !== r.sha256) continue;
    kept.push({ index: r.idx, share: r.share, path: packPath(r.idx), size: r.size, plain: r.plain, chunks: r.chunks, sha256: r.sha256 });
  }
  const keep = new Set(kept.map((p) => `${p.share}/${p.path}`));
  for (const [share, root] of roots.entries()) {
    const part = bagDir(root, id) + PART_SUFFIX;
    for (const name of await readdir(part, { recursive: true }).catch(() => [] as string[])) {
      const rel = name.split('\\').join('/');
      const full = join(part, rel);
      if ((await stat(full).catch(() => null))?.isFile() && !keep.has(`${share}/${rel}`)) await rm(full, { force: true });
    }
    for (const d of ['data/parity', 'data/recovery']) await rm(join(part, d), { recursive: true, force: true });
  }
  return kept;
}

/** Checks that the drives given to `--resume` match the interrupted shipment's layout. @throws BrickpostError USAGE */
export function checkLayout(it: Interrupted, drives: number, parity: number): void {
  if (it.layout.drives !== drives || it.layout.parity !== parity) {
    throw new BrickpostError(
      'USAGE',
      `shipment ${quote(it.id)} was started on ${it.layout.drives} drive(s) with parity ${it.layout.parity}; this run gives ${drives} with parity ${parity}`,
      { hint: 'give the same --to drives, in the same order, and the same --parity' },
    );
  }
}

/** Drops an interrupted shipment that a new pack replaces: its catalog rows and its `.part` folders on the drives given. */
export async function discard(ctx: Context, id: string, roots: string[], warn: (code: string, message: string) => void): Promise<void> {
  warn('INTERRUPTED_DROPPED', `shipment ${id} of this dataset was interrupted; a new shipment replaces it (pack --resume would have continued it)`);
  // Folders first: a kill in between leaves a row that the next pack drops again, never an unknown folder.
  for (const r of roots) await rm(bagDir(r, id) + PART_SUFFIX, { recursive: true, force: true });
  deleteShipment(ctx.catalog, id);
}
