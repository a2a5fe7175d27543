/**
 * The lists an ingest writes beside DEST's state: the files --skip-damaged
 * left out (DEST/.brickpost/skipped/ID.txt) and what the shipment records
 * that was not applied (DEST/.brickpost/not-applied/ID.txt).
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { quote, toField } from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import { makeFolders } from '../io/folders.js';

/** Counts by reason, added up. */
export function merge(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** Lists what the shipment records that this ingest did not create or apply, one JSON object per line, in DEST/.brickpost/not-applied/ID.txt. */
export async function writeNotApplied(state: string, id: string, list: Array<{ path: string; reason: string }>): Promise<string> {
  const file = join(state, 'not-applied', `${id}.txt`);
  await makeFolders(dirname(file), 0o700);
  await writeFile(file, list.map((x) => JSON.stringify({ path: toField(x.path), reason: x.reason })).join('\n') + '\n');
  return file;
}

/** Lists the files --skip-damaged left out, one JSON string per line, in DEST/.brickpost/skipped/ID.txt; warns for each (the first 100). */
export async function writeSkipped(state: string, id: string, skipped: Set<string>, onEvent: EventSink): Promise<string> {
  const file = join(state, 'skipped', `${id}.txt`);
  await makeFolders(dirname(file));
  await writeFile(file, [...skipped].map((p) => JSON.stringify(p)).join('\n') + '\n');
  let n = 0;
  for (const p of skipped) {
    if (++n > 100) break;
    onEvent({ type: 'warning', code: 'SKIPPED_DAMAGED', message: `skipped ${quote(p)}: its data on the drive is damaged`, path: p });
  }
  return file;
}
