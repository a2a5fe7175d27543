/**
 * The contract of a destination's undo data (`brickpost pin`, `unpin`,
 * `prune`, `extract --at`): types only, importable by the renderer.
 */

/** A named consistency point of a destination (`brickpost pin`): rollback always reaches it. */
export interface PinInfo {
  name: string;
  shipmentId: string;
  seq: number;
  /** When it was pinned (ISO 8601). */
  at: string;
}

/** How long a destination keeps undo data. */
export interface RetentionInfo {
  /** The last N shipments keep theirs. */
  keepUndo: number;
  /** Every shipment keeps its undo data. */
  keepAll: boolean;
  /** Shipments applied within this many days keep theirs (null: no such rule). */
  keepDays: number | null;
}

/** Options of Engine.pin. */
export interface PinOptions {
  dest: string;
  /** Shipment id or sequence number of an applied shipment rollback can reach. */
  shipment: string;
  name: string;
}

/** Options of Engine.unpin. */
export interface UnpinOptions {
  dest: string;
  /** The pin's name, or the sequence number of a pinned shipment (all its pins go). */
  pin: string;
}

/** What pin and unpin leave. */
export interface PinSummary {
  dest: string;
  /** The pins of DEST afterwards, oldest shipment first. */
  pins: PinInfo[];
  /** Undo data unpinning freed (bytes; 0 for pin). */
  freedBytes: number;
}

/** Options of Engine.prune. */
export interface PruneOptions {
  dest: string;
  /** New retention settings (remembered by DEST); those not given stay. */
  keepUndo?: number;
  keepAll?: boolean;
  keepDays?: number;
  /** Also drop the undo data that rollback needs to go back before this sequence number; refused when a pin is older. */
  before?: number;
}

/** What prune removed. */
export interface PruneSummary {
  dest: string;
  retention: RetentionInfo;
  pins: PinInfo[];
  /** Shipments whose undo data was removed. */
  removed: Array<{ shipmentId: string; seq: number }>;
  freedBytes: number;
  /** Undo data left (bytes). */
  undoBytes: number;
}

/** Options of Engine.extractAt. */
export interface ExtractAtOptions {
  dest: string;
  /** The applied shipment (sequence number or id) whose tree the files come from. */
  at: string;
  /** Files, relative to DEST's root. */
  paths: string[];
  /** The folder to write into (created when absent; nothing in it is replaced). */
  to: string;
}

/** What extract --at wrote. */
export interface ExtractAtSummary {
  dest: string;
  at: { shipmentId: string; seq: number };
  to: string;
  files: Array<{ path: string; bytes: number; from: 'current' | 'undo' }>;
  seconds: number;
}
