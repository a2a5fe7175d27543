/**
 * Migration 005: the custody log (FORMAT.md §custody). One row per event of
 * each drive's chain this home has seen or written: the event line as
 * signed, its hash, and whether it is also in the drive's log (on_drive 0:
 * recorded here only, as a receipt or an event the drive could not take).
 * Never edit after release.
 */
export default `
CREATE TABLE custody (
  shipment_id TEXT NOT NULL,
  drive TEXT NOT NULL,
  n INTEGER NOT NULL,
  type TEXT NOT NULL,
  at TEXT NOT NULL,
  hash TEXT NOT NULL,
  line TEXT NOT NULL,
  on_drive INTEGER NOT NULL,
  PRIMARY KEY (shipment_id, drive, n)
) WITHOUT ROWID;
`;
