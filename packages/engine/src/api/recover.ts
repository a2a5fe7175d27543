/**
 * The API contract of recovering a damaged database: the home's catalog
 * (`brickpost catalog recover`) and a destination's journal
 * (`brickpost journal recover DEST`). Types only; no Node imports.
 */

/** What `catalog recover` works from besides the damaged file. */
export interface CatalogRecoverOptions {
  /** The home (default: as Engine.open). */
  home?: string;
  /** Destinations this home ingested into: their state rebuilds the catalog's record of them (with those the damaged catalog still names). */
  dests?: string[];
  /** Drives holding shipments this home packed or handled: their bags and custody logs rebuild the shipments' records. */
  drives?: string[];
  /** This home's display name, when the catalog's record of it is lost. */
  name?: string;
  /** Recover even a catalog that checks out intact (set it aside and rebuild). */
  force?: boolean;
}

/** What was read back of one table of a damaged database. */
export interface SalvagedTable {
  table: string;
  /** Rows copied into the new database. */
  kept: number;
  /** Rows the damaged file holds that could not be read or kept; null when even their number cannot be read. */
  lost: number | null;
  /** Why reading stopped, when it did. */
  error: string | null;
}

/** One thing rebuilt, and from what. */
export interface RebuiltItem {
  what: string;
  from: string;
}

/** One thing lost, and what that means for the user. */
export interface LostItem {
  what: string;
  meaning: string;
}

/** The result of `catalog recover` and `journal recover`. */
export interface RecoverSummary {
  /** The database file recovered. */
  file: string;
  /** True when the file checked out intact and nothing was changed. */
  intact: boolean;
  /** Where the damaged file (and its -wal and -shm files) now are; empty when intact. */
  setAside: string[];
  kept: SalvagedTable[];
  rebuilt: RebuiltItem[];
  lost: LostItem[];
  /** Journal only: the apply or rollback that was in progress, when one was (kept: the next ingest or rollback finishes it), or 'unknown'. */
  pending?: { kind: 'apply' | 'rollback'; shipmentId: string } | 'unknown' | null;
}
