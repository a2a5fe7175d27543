import type { Catalog } from '../catalog/catalog.js';
import { lastSealed, newestReceipt, newestSealedIds, newestSentTo, publishedIds, publishedRecipients, sentToAfter } from '../catalog/published.js';
import { dropTree, dropUnusedSigs, hasTree } from '../catalog/trees.js';
import { RECORD_LIMITS } from '@brickpost/manifest';

/** A shipment of the dataset's chain, as bases name it. */
export interface ChainLink {
  shipmentId: string;
  seq: number;
}

/** Where a new shipment goes in its dataset's chain (FORMAT.md §10.4), and why. */
export interface ChainPlan {
  /** The dataset's newest sealed shipment, or null for the first. */
  parent: string | null;
  seq: number;
  /** The shipments whose trees the new one is relative to; empty for a self-contained shipment. */
  bases: ChainLink[];
  /** Why the shipment is self-contained, or how recipients at different states are served. */
  notes: string[];
}

/** `age1…` and the last six characters of a recipient: enough to tell recipients apart in a note. */
export function shortRecipient(r: string): string {
  return r.length > 14 ? `${r.slice(0, 4)}…${r.slice(-6)}` : r;
}

/**
 * The shipments recipient `r` may hold the dataset at: with receipts (those
 * whose check passed: a destination that failed it gets a request instead), the
 * one of the highest receipt and every sealed shipment sent to `r` after it
 * (any of them may have been applied since); without, the newest sealed
 * shipment sent to `r` (assumed applied). Oldest first; empty when `r` never
 * received the dataset.
 */
export function candidates(catalog: Catalog, datasetId: string, r: string): ChainLink[] {
  const receipt = newestReceipt(catalog, datasetId, r);
  if (!receipt) {
    const newest = newestSentTo(catalog, datasetId, r);
    return newest ? [newest] : [];
  }
  return [receipt, ...sentToAfter(catalog, datasetId, r, receipt.seq)];
}

/**
 * Plans the next shipment of a dataset. `recipients` are those the shipment
 * is for, without the publisher's own (which never ingests). Bases are the
 * union of every recipient's candidates; the shipment is self-contained
 * (no bases) with `full`, for the first shipment, when a recipient never
 * received the dataset, when a base's tree is no longer in the catalog, and
 * when there would be more than 16 bases.
 */
export function planChain(catalog: Catalog, datasetId: string, recipients: string[], full: boolean): ChainPlan {
  const last = lastSealed(catalog, datasetId);
  const plan: ChainPlan = { parent: last?.id ?? null, seq: (last?.seq ?? 0) + 1, bases: [], notes: [] };
  if (!last) return plan;
  if (full) {
    plan.notes.push('self-contained: --full');
    return plan;
  }
  if (recipients.length === 0) {
    plan.notes.push('self-contained: no recipient besides yourself');
    return plan;
  }
  const per = new Map<string, ChainLink[]>();
  for (const r of recipients) {
    const c = candidates(catalog, datasetId, r);
    if (c.length === 0) {
      plan.notes.push(`self-contained: ${shortRecipient(r)} never received this dataset`);
      return plan;
    }
    per.set(r, c);
  }
  const bases = new Map<string, ChainLink>();
  for (const c of per.values()) for (const l of c) bases.set(l.shipmentId, l);
  const sorted = [...bases.values()].sort((a, b) => a.seq - b.seq);
  if (sorted.length > RECORD_LIMITS.maxBases) {
    plan.notes.push(`self-contained: the recipients may hold ${sorted.length} different states, more than ${RECORD_LIMITS.maxBases}`);
    return plan;
  }
  // Tree rows are pruned, and absent before chains existed.
  const gone = sorted.find((l) => !hasTree(catalog, l.shipmentId));
  if (gone) {
    plan.notes.push(`self-contained: the catalog no longer holds the tree of seq ${gone.seq}`);
    return plan;
  }
  plan.bases = sorted;
  plan.notes.push(...stateNotes(per));
  return plan;
}

/** One note per recipient that lags the others: "age1…xyz is at seq 3, others at seq 5: shipping what seq 3 lacks". */
function stateNotes(per: Map<string, ChainLink[]>): string[] {
  const key = (c: ChainLink[]): string => c.map((l) => l.seq).join(',');
  if (new Set([...per.values()].map(key)).size <= 1) return [];
  const notes: string[] = [];
  const newest = Math.max(...[...per.values()].map((c) => c[c.length - 1]!.seq));
  for (const [r, c] of per) {
    const oldest = c[0]!.seq;
    if (oldest === newest) continue;
    const others = new Set<number>();
    for (const [o, oc] of per) if (o !== r) for (const l of oc) others.add(l.seq);
    const seqs = (s: Iterable<number>): string => [...s].sort((a, b) => a - b).join(' or ');
    notes.push(`${shortRecipient(r)} is at seq ${seqs(c.map((l) => l.seq))}, others at seq ${seqs(others)}: shipping what seq ${oldest} lacks`);
  }
  return notes;
}

/**
 * Drops the trees the next shipment can no longer be relative to: every
 * published shipment of the dataset except the newest `keepNewest` and the
 * candidates of every recipient it was ever sent to (but `self`); then the
 * signatures no tree refers to any more. Runs inside the caller's
 * transaction.
 */
export function pruneTrees(catalog: Catalog, datasetId: string, self: string, keepNewest = 3): void {
  const keep = new Set<string>(newestSealedIds(catalog, datasetId, keepNewest));
  for (const r of publishedRecipients(catalog, datasetId)) if (r !== self) for (const l of candidates(catalog, datasetId, r)) keep.add(l.shipmentId);
  for (const id of publishedIds(catalog, datasetId)) if (!keep.has(id)) dropTree(catalog, id);
  dropUnusedSigs(catalog);
}
