/**
 * The engine API's types for the custody log (FORMAT.md §custody): a
 * hash-chained, signed record of every handling step of a shipment.
 * Types only.
 */

export type CustodyEventType = 'packed' | 'sealed' | 'verified' | 'ingested' | 'receipt-issued' | 'wiped' | 'rebuilt';

/** Who signed an event, and whether this home trusts that key. */
export interface CustodyActor {
  name: string;
  /** minisign key id, 16 upper-case hex digits. */
  keyId: string;
  /** minisign public key, `RW…`. */
  publicKey: string;
  /** The key is in this home's trust store (with this public key). */
  trusted: boolean;
  /** The name this home trusts the key under, or null. */
  trustedAs: string | null;
}

export interface CustodyEvent {
  /** Position in the chain, from 1, as the event states it. */
  n: number;
  type: CustodyEventType;
  /** When the actor acted, ISO 8601 UTC (the actor's clock). */
  at: string;
  shipment: string;
  /** The drive of the shipment the chain belongs to: `i of N`. */
  drive: string;
  actor: CustodyActor;
  /** Counts and digests of the step (FORMAT.md §custody lists them per type). */
  details: Record<string, string | number | boolean | null>;
  /** SHA-256 (hex) of the previous event, or 64 zeros for the first. */
  prev: string;
  /** SHA-256 (hex) of this event. */
  hash: string;
  /** Where it was read: the drive's custody log, the bag's custody.ndjson (no log yet), or this home's catalog only (not on the drive). */
  source: 'drive' | 'bag' | 'catalog';
  /** The event passed every check of its own (parsed, numbered, chained, signed). */
  valid: boolean;
}

export interface CustodyProblem {
  code: string;
  message: string;
  path?: string;
  /** The event (position) the problem is about. */
  n?: number;
}

export interface CustodyReport {
  shipmentId: string;
  /** The drive of the shipment (`i of N`), when known. */
  drive: string | null;
  /** The bag is on the drive ('present'), removed by wipe ('removed'), or no drive was read ('unknown'). */
  bag: 'present' | 'removed' | 'unknown';
  /** The drive's custody log, when it exists. */
  log: string | null;
  /** Every event is signed by its actor and chained to the one before, and nothing else is wrong. */
  ok: boolean;
  events: CustodyEvent[];
  /** The first event that fails (its position, from 1), or null. */
  brokenAt: number | null;
  problems: CustodyProblem[];
}

export interface CustodyOptions {
  /** The drive (its root, brickpost/ folder or a bag folder). Without it, this home's catalog record is read. */
  drive?: string;
  /** The shipment, when the drive holds several (required without a drive). */
  shipment?: string;
}

export interface WipeOptions {
  drive: string;
  shipment?: string;
  /** Wipe even when this home has not ingested the shipment. */
  force?: boolean;
}

export interface WipeSummary {
  shipmentId: string;
  /** The bag folder removed. */
  removed: string;
  files: number;
  bytes: number;
  /** The destinations this home ingested the shipment into. */
  ingestedTo: string[];
  /** The wiped event, when one was recorded (needs an identity). */
  event: CustodyEvent | null;
  /** The custody log left on the drive, or null when it could not be written. */
  log: string | null;
}
