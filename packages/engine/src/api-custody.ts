/**
 * The engine API's types for the custody log (FORMAT.md §custody): a
 * hash-chained, signed record of every handling step of a shipment.
 * Re-exported by api.ts. (Refined by the custody implementation.)
 */

export type CustodyEventType = 'packed' | 'sealed' | 'verified' | 'ingested' | 'receipt-issued' | 'wiped';

export interface CustodyEvent {
  /** Position in the chain, from 1. */
  n: number;
  type: CustodyEventType;
  at: string;
  shipment: string;
  actor: { name: string; keyId: string };
  /** SHA-256 (hex) of the previous event, or 64 zeros for the first. */
  prev: string;
  /** SHA-256 (hex) of this event. */
  hash: string;
}

export interface CustodyReport {
  shipmentId: string;
  /** Every event is signed by its actor and chained to the one before. */
  ok: boolean;
  events: CustodyEvent[];
  /** The first event that fails (n), or null. */
  brokenAt: number | null;
  problems: Array<{ code: string; message: string; path?: string }>;
}
