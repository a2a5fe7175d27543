/** Migration 001: the first catalog schema. Never edit after release. */
export default `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE trust (
  key_id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  public_key TEXT NOT NULL,
  added_at TEXT NOT NULL,
  self INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE datasets (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  publisher TEXT NOT NULL,
  secret BLOB NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (publisher, name)
);
CREATE TABLE shipments (
  id TEXT PRIMARY KEY,
  dataset_id TEXT NOT NULL REFERENCES datasets(id),
  seq INTEGER NOT NULL,
  parent TEXT,
  label TEXT NOT NULL,
  created_at TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('published', 'received')),
  state TEXT NOT NULL,
  files INTEGER,
  bytes INTEGER,
  bytes_on_drive INTEGER
);
CREATE INDEX shipments_dataset ON shipments (dataset_id, seq);
CREATE TABLE shipment_recipients (
  shipment_id TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
  recipient TEXT NOT NULL,
  PRIMARY KEY (shipment_id, recipient)
) WITHOUT ROWID;
CREATE TABLE packs (
  shipment_id TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  chunks INTEGER NOT NULL,
  PRIMARY KEY (shipment_id, idx)
) WITHOUT ROWID;
CREATE TABLE chunks (
  dataset_id TEXT NOT NULL,
  id BLOB NOT NULL,
  shipment_id TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
  pack INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  frame_len INTEGER NOT NULL,
  len INTEGER NOT NULL,
  PRIMARY KEY (dataset_id, id, shipment_id)
) WITHOUT ROWID;
CREATE TABLE ingests (
  shipment_id TEXT NOT NULL,
  dataset_id TEXT NOT NULL,
  publisher TEXT NOT NULL,
  seq INTEGER NOT NULL,
  dest TEXT NOT NULL,
  state TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  files INTEGER,
  bytes INTEGER,
  PRIMARY KEY (shipment_id, dest)
);
`;
