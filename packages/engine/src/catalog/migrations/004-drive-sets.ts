/**
 * Migration 004: what resuming an interrupted pack needs: the drive layout
 * of each shipment (drives, parity, recovery) and, per pack, the data share
 * (drive) that holds it and its plaintext size. Never edit after release.
 */
export default `
ALTER TABLE shipments ADD COLUMN layout TEXT;
ALTER TABLE packs ADD COLUMN share INTEGER NOT NULL DEFAULT 0;
ALTER TABLE packs ADD COLUMN plain INTEGER NOT NULL DEFAULT 0;
`;
