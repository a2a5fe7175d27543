/**
 * Migration 002: shipment chains. What the publisher needs to ship only
 * changes: the tree of each shipment it packed (files with their stat cache
 * and chunk list, and the set of chunk ids), signatures of file versions for
 * deltas, and receipts from subscribers. Never edit after release.
 */
export default `
ALTER TABLE shipments ADD COLUMN bases TEXT NOT NULL DEFAULT '[]';
ALTER TABLE shipments ADD COLUMN against TEXT;
-- One row per file of a published shipment's tree. chunks: per chunk, the
-- 32-byte id then the length as a 4-byte big-endian integer.
CREATE TABLE tree_files (
  shipment_id TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mode INTEGER NOT NULL,
  mtime_ns TEXT NOT NULL,
  ctime_ns TEXT NOT NULL,
  ino TEXT NOT NULL,
  chunks BLOB NOT NULL,
  sig_id INTEGER REFERENCES sigs(id),
  PRIMARY KEY (shipment_id, path)
) WITHOUT ROWID;
-- The distinct chunk ids of a published shipment's tree.
CREATE TABLE tree_chunks (
  shipment_id TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
  chunk BLOB NOT NULL,
  PRIMARY KEY (shipment_id, chunk)
) WITHOUT ROWID;
-- bpsig1 signatures of file versions, by the SHA-256 of their chunk list.
CREATE TABLE sigs (
  id INTEGER PRIMARY KEY,
  content BLOB NOT NULL UNIQUE,
  block_size INTEGER NOT NULL,
  length INTEGER NOT NULL,
  sig BLOB NOT NULL
);
-- Receipts imported from subscribers (brickpost receipt import).
CREATE TABLE receipts (
  id INTEGER PRIMARY KEY,
  dataset_id TEXT NOT NULL,
  recipient TEXT NOT NULL,
  subscriber_key TEXT NOT NULL,
  subscriber_name TEXT,
  shipment_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  verified TEXT NOT NULL,
  state_digest TEXT NOT NULL,
  created_at TEXT NOT NULL,
  imported_at TEXT NOT NULL,
  file_sha256 TEXT NOT NULL UNIQUE
);
CREATE INDEX receipts_recipient ON receipts (dataset_id, recipient, seq);
`;
