/**
 * The engine API's types for the publisher's view of its subscribers (who
 * holds which shipment, who is behind and by how much, where each drive
 * is) and the subscriber's view of how far behind the newest shipment it
 * has seen its destination is. Types only; parseMaxLag (catalog/max-lag.ts)
 * reads `--max-lag` values for every front end.
 */
/** How far behind a subscriber may be before it is flagged: more shipments than `shipments`, or an unacknowledged shipment older than `seconds`. */
export interface MaxLag {
  shipments?: number;
  seconds?: number;
}

/** Where a drive of a shipment is, as far as this home knows: the last of these steps recorded. */
export type DriveState = 'packed' | 'shipped' | 'acknowledged' | 'wiped' | 'returned';

/** One drive of a shipment sent to a subscriber. */
export interface DriveWhere {
  shipment: string;
  seq: number;
  /** `i of N`. */
  drive: string;
  state: DriveState;
  /** When each step happened, ISO 8601 UTC, or null when it was not recorded. */
  packedAt: string;
  shippedAt: string | null;
  acknowledgedAt: string | null;
  wipedAt: string | null;
  returnedAt: string | null;
}

/** A shipment as the lag view names it. */
export interface LagShipment {
  shipment: string;
  seq: number;
  label: string;
  created: string;
  /** Bytes it took on its drives (payload and parity), 0 when not recorded. */
  bytesOnDrive: number;
}

/** One subscriber of one dataset, as the publisher's catalog knows them. */
export interface SubscriberLag {
  dataset: string;
  datasetId: string;
  /** Their age recipient: what shipments are encrypted to, and what receipts name. */
  recipient: string;
  /** The name this home trusts them under, else the name in their receipt, else null. */
  name: string | null;
  /** Their minisign key id, when trusted or known from a receipt. */
  keyId: string | null;
  /** The newest shipment this home sealed of the dataset. */
  newest: LagShipment;
  /** The newest shipment a verified receipt of theirs acknowledges, with when it was written and imported, or null. */
  acknowledged: (LagShipment & { receiptCreated: string; imported: string; level: string }) | null;
  /** Shipments sent to them (their recipient was one) after the acknowledged one, oldest first. */
  unacknowledged: LagShipment[];
  lag: {
    /** Shipments of the dataset they have not acknowledged (from the first one sent to them). */
    shipments: number;
    /** Their bytes on the drives. */
    bytes: number;
    /** Days since the oldest of them was packed (0 when none). */
    days: number;
    /** When the oldest of them was packed, or null. */
    since: string | null;
  };
  /** Past the limit given (`--max-lag`). */
  pastMaxLag: boolean;
  /** The drives of the shipments sent to them, oldest first. */
  drives: DriveWhere[];
}

/** Options of Engine.subscribers. */
export interface SubscribersOptions {
  /** Only this dataset (name or id). */
  dataset?: string;
  maxLag?: MaxLag;
  /** The time lag is measured at, ISO 8601 (default: now). */
  now?: string;
}

/** `brickpost subscribers`: every subscriber of every dataset this home publishes. */
export interface SubscribersReport {
  now: string;
  maxLag: MaxLag | null;
  subscribers: SubscriberLag[];
  /** How many are past maxLag. */
  past: number;
}

/** Options of Engine.markDrive (`brickpost drive shipped|returned`). */
export interface DriveMarkOptions {
  state: 'shipped' | 'returned';
  /** A shipment id this home packed, or a drive holding one (returned: its custody log is read too). */
  target: string;
  /** Only this drive of the shipment (`i of N` or `i`); default every drive. */
  drive?: string;
  /** When it happened, ISO 8601 (default: now). */
  at?: string;
}

/** What `brickpost drive shipped|returned` recorded. */
export interface DriveMarkSummary {
  shipment: string;
  state: 'shipped' | 'returned';
  at: string;
  drives: string[];
  /** Custody events read from the drive's log into the catalog (returned with a drive). */
  eventsRecorded: number;
}

/** How far behind the newest shipment this home saw of the destination's dataset it is (in DestHistory). */
export interface SeenLag {
  /** The newest shipment seen signed on a drive (verify or ingest on this home). */
  newestSeq: number;
  newestShipment: string;
  /** When it was seen first. */
  seenAt: string;
  /** Shipments between what DEST holds and that one (0: up to date). */
  behind: number;
}
