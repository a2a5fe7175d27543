import type { DriveShipment, ShipmentChoice } from '../api/index.js';
import { ambiguous, shipmentsOn } from '../drive/layout.js';
import { DestFolder, realDest, type DestState } from './state.js';

/**
 * Which shipment of a drive that holds several applies next to a
 * destination (README "Shipping changes": a drive that carries this month's
 * shipment beside last month's):
 *
 * - DEST with state: the shipment of DEST's dataset with the lowest
 *   sequence number above the last one applied; when there is none, the
 *   one applied last if the drive holds it (ingest then says it is already
 *   applied), else the newest of the dataset (ingest then refuses it as a
 *   replay, naming both sequence numbers);
 * - an empty or new DEST: the oldest shipment, when all shipments on the
 *   drive are of one dataset (the base comes before what builds on it).
 *
 * Returns null when the drive holds one shipment or none (ingest opens it,
 * or says there is none).
 * @throws BrickpostError AMBIGUOUS_SHIPMENT (listing the shipments) when no rule picks one; NOT_A_DRIVE, NOT_FOUND
 */
export async function chooseShipment(drive: string, destPath: string): Promise<ShipmentChoice | null> {
  const all = await shipmentsOn(drive);
  if (all.length < 2) return null;
  const state = await new DestFolder(await realDest(destPath)).readState().catch(() => null);
  const choice = pick(all, state);
  if (!choice) throw ambiguous(drive, all);
  return choice;
}

function pick(all: DriveShipment[], state: DestState | null): ShipmentChoice | null {
  const readable = all.filter((s) => s.seq !== null && s.datasetId !== null);
  const current = state?.applied[state.applied.length - 1];
  if (state && current) {
    const mine = readable.filter((s) => s.datasetId === state.datasetId).sort((a, b) => a.seq! - b.seq!);
    const next = mine.find((s) => s.seq! > current.seq);
    if (next)
      return {
        chosen: next,
        reason: `the next after #${current.seq}, the last shipment applied to the destination`,
        later: mine.filter((s) => s.seq! > next.seq!),
      };
    const same = mine.find((s) => s.id === current.shipment);
    if (same) return { chosen: same, reason: `#${current.seq} is the last shipment applied to the destination and the newest of its dataset here`, later: [] };
    const newest = mine[mine.length - 1];
    if (newest) return { chosen: newest, reason: `the newest of the destination's dataset here`, later: [] };
    return null;
  }
  const datasets = new Set(readable.map((s) => s.datasetId));
  if (datasets.size !== 1 || readable.length !== all.length) return null;
  const sorted = [...readable].sort((a, b) => a.seq! - b.seq!);
  const first = sorted[0]!;
  return { chosen: first, reason: 'the oldest of its dataset here, for a new destination', later: sorted.slice(1) };
}
