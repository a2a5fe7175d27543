import { BrickpostError, displayName, quote, type FileRecord } from '@brickpost/manifest';
import type { CatOptions, EventSink } from '../api/index.js';
import type { Context } from '../context.js';
import { Progress } from '../io/progress.js';
import { readManifest } from '../verify/manifest-stream.js';
import { chunkBuffer } from '../verify/native-readers.js';
import { walkShipment } from '../verify/walk-shipment.js';
import { openReadable } from './open.js';
import { Selection } from './selection.js';

const ZEROS = Buffer.alloc(1 << 20);

/**
 * Writes one file of a shipment to `write` (the CLI: standard output), its
 * chunks read where they are on the drive and checked against their keyed
 * ids, its holes as zeros. A hard link names its file. Resolves to the
 * bytes written.
 * @throws BrickpostError NOT_FOUND (no such entry), USAGE (a folder, a link or a special file), BASIS_MISSING (a file of an incremental shipment that reuses data it does not carry), and what opening and reading the drive throw
 */
export async function cat(
  ctx: Context,
  opts: CatOptions,
  write: (b: Buffer) => Promise<void>,
  onEvent: EventSink,
  signal?: AbortSignal,
): Promise<{ shipmentId: string; path: string; bytes: number }> {
  const r = await openReadable(ctx, opts.drive, opts.drives ?? [], opts.shipment, onEvent, signal, opts.maxExpansion);
  try {
    const sel = new Selection([opts.path]);
    let want: string | null = null;
    for await (const rec of readManifest(r.shipment, r.identities)) {
      if (rec.t === 'shipment' || rec.t === 'more' || rec.t === 'pack' || rec.t === 'end' || want !== null) continue;
      if (!sel.selects(rec.p)) continue;
      if (rec.t === 'file') want = rec.p;
      else if (rec.t === 'hard') want = rec.to;
      else {
        const what =
          rec.t === 'dir'
            ? 'a folder (brickpost extract takes folders)'
            : rec.t === 'link'
              ? `a symbolic link to ${quote(displayName(rec.target))}`
              : `a ${rec.kind}`;
        throw new BrickpostError('USAGE', `${quote(displayName(rec.p))} is ${what}, not a file`);
      }
    }
    sel.checkAllFound();
    let bytes = 0;
    let target: FileRecord | null = null;
    await walkShipment(
      r.shipment,
      r.identityText,
      {
        wants: (f) => f.p === want,
        fileStart: (f) => void (target = f),
        chunk: async (data) => {
          bytes += data.length;
          await write(chunkBuffer(data));
        },
        hole: async (length) => {
          for (let left = length; left > 0; left -= ZEROS.length) await write(ZEROS.subarray(0, Math.min(left, ZEROS.length)));
          bytes += length;
        },
        held: () => {
          throw new BrickpostError('BASIS_MISSING', `${quote(displayName(want!))} reuses data this incremental shipment does not carry`, {
            hint: 'read it from the destination that ingested it, or from a self-contained shipment',
          });
        },
        delta: () => {
          throw new BrickpostError('BASIS_MISSING', `${quote(displayName(want!))} is a delta against data this incremental shipment does not carry`, {
            hint: 'read it from the destination that ingested it, or from a self-contained shipment',
          });
        },
      },
      new Progress(onEvent, 'cat'),
      signal,
      r.allPacks,
    );
    if (!target) throw new BrickpostError('NOT_FOUND', `the shipment holds no file ${quote(displayName(opts.path))}`);
    return { shipmentId: r.shipment.id, path: want!, bytes };
  } finally {
    await r.close();
  }
}
