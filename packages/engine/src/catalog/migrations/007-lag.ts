/**
 * Migration 007: what the publisher's and the subscriber's lag views need.
 * drive_marks: the handling steps of a drive that happen away from any
 * brickpost command (handed to a courier, back at the publisher), recorded
 * by `brickpost drive shipped|returned`. seen_shipments: every shipment of
 * a dataset this home saw signed and intact on a drive (verify, ingest),
 * so a subscriber knows how far behind the newest one its destination is.
 * Never edit after release.
 */
export default `
CREATE TABLE drive_marks (
  shipment_id TEXT NOT NULL,
  drive TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('shipped', 'returned')),
  at TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  PRIMARY KEY (shipment_id, drive, state)
) WITHOUT ROWID;
CREATE TABLE seen_shipments (
  dataset_id TEXT NOT NULL,
  publisher TEXT NOT NULL,
  shipment_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  seen_at TEXT NOT NULL,
  PRIMARY KEY (dataset_id, shipment_id)
) WITHOUT ROWID;
`;
