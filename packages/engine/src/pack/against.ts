import { BrickpostError, quote } from '@brickpost/manifest';
import type { Context } from '../context.js';
import { trustedVerifiers } from '../keys/index.js';
import { openSignatureFile } from '../sigfile/index.js';
import { ListedHeld } from './held.js';

/** A signature or request file loaded for `pack --against`. */
export interface Against {
  /** SHA-256 (hex) of the file: the manifest's `against`. */
  sha256: string;
  ids: 'hmac' | 'sha256';
  /** The chunks the file lists, in a temporary table. */
  held: ListedHeld;
}

/**
 * Reads a subscriber's signature or request file (signed by a trusted key)
 * and loads every chunk id it lists into a temporary table: those chunks are
 * the held set of a shipment built against it. Keyed ids (`hmac`) only mean
 * something for the dataset they were made for.
 * @throws BrickpostError DATASET_MISMATCH, and what openSignatureFile throws
 */
export async function loadAgainst(ctx: Context, path: string, datasetId: string): Promise<Against> {
  const f = await openSignatureFile(path, trustedVerifiers(ctx.catalog));
  const { ids, datasetId: theirs } = f.header;
  if (ids === 'hmac' && theirs !== datasetId) {
    throw new BrickpostError(
      'DATASET_MISMATCH',
      `signature file ${quote(path)} lists keyed chunk ids of dataset ${quote(String(theirs))}, not of ${quote(datasetId)}`,
      {
        hint: 'pack the dataset the file was made for, or ask for a signature file with plain SHA-256 ids',
      },
    );
  }
  const held = new ListedHeld(ctx.catalog, ids);
  try {
    let batch: Buffer[] = [];
    const flush = (): void => {
      ctx.catalog.tx(() => {
        for (const id of batch) held.add(id);
      });
      batch = [];
    };
    for await (const r of f.records()) {
      if (r.t !== 'file' && r.t !== 'more') continue;
      for (const [hex] of r.c) batch.push(Buffer.from(hex, 'hex'));
      if (batch.length >= 4096) flush();
    }
    flush();
  } catch (e) {
    held.close();
    throw e;
  }
  return { sha256: f.sha256, ids, held };
}
