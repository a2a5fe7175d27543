/**
 * The catalog's `custody` table: the custody events of each drive of a
 * shipment (custody/), by position in the drive's chain.
 */
import { parseCustodyEvent, type CustodyEventLine } from '@brickpost/manifest';
import type { Catalog } from './catalog.js';

/** One event as the catalog holds it. */
export interface StoredEvent {
  n: number;
  line: string;
  hash: string;
  onDrive: boolean;
}

interface Row {
  n: number;
  line: string;
  hash: string;
  on_drive: number;
}

/** The chain of one drive of a shipment this home recorded, by n. */
export function storedChain(catalog: Catalog, shipment: string, drive: string): StoredEvent[] {
  const rows = catalog.db
    .prepare<[string, string], Row>('SELECT n, line, hash, on_drive FROM custody WHERE shipment_id = ? AND drive = ? ORDER BY n')
    .all(shipment, drive);
  return rows.map((r) => ({ n: r.n, line: r.line, hash: r.hash, onDrive: r.on_drive === 1 }));
}

/** The drives (`i of N`) of a shipment the catalog holds a chain of. */
export function storedDrives(catalog: Catalog, shipment: string): string[] {
  return catalog.db.prepare<[string], string>('SELECT DISTINCT drive FROM custody WHERE shipment_id = ? ORDER BY drive').pluck().all(shipment);
}

/**
 * Records events of a chain (positions from 1). A position already held
 * with another line is replaced: the caller decided which chain holds.
 * `onDrive` marks them as being in the drive's log too.
 */
export function storeEvents(catalog: Catalog, shipment: string, drive: string, lines: string[], onDrive: boolean, from = 1): void {
  const put = catalog.db.prepare<[string, string, number, string, string, string, string, number]>(
    `INSERT INTO custody (shipment_id, drive, n, type, at, hash, line, on_drive) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (shipment_id, drive, n) DO UPDATE SET type = excluded.type, at = excluded.at, hash = excluded.hash, line = excluded.line,
       on_drive = CASE WHEN custody.hash = excluded.hash THEN max(custody.on_drive, excluded.on_drive) ELSE excluded.on_drive END`,
  );
  catalog.tx(() => {
    for (const [i, line] of lines.entries()) {
      const e: CustodyEventLine = parseCustodyEvent(line);
      put.run(shipment, drive, from + i, e.type, e.at, e.hash, line, onDrive ? 1 : 0);
    }
  });
}
