import Database from 'better-sqlite3';
import { BrickpostError, quote } from '@brickpost/manifest/errors';
import m001 from './migrations/001-initial.js';
import m002 from './migrations/002-chains.js';
import m003 from './migrations/003-sig-index.js';
import m004 from './migrations/004-drive-sets.js';
import m005 from './migrations/005-custody.js';
import m006 from './migrations/006-trust-recipient.js';
import m007 from './migrations/007-lag.js';
import { tablesOf } from '../io/sqlite-open.js';

/** Migrations in order; the catalog's user_version is the number applied. */
const MIGRATIONS: readonly string[] = [m001, m002, m003, m004, m005, m006, m007];

/** The schema version of a catalog this brickpost writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings a catalog up to the current schema, one transaction per migration.
 * A catalog from a newer brickpost is refused rather than guessed at.
 * @throws BrickpostError UNSUPPORTED_VERSION
 */
export function migrate(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new BrickpostError('UNSUPPORTED_VERSION', `catalog ${quote(file)} has schema ${version}, newer than this brickpost knows (${MIGRATIONS.length})`, {
      hint: 'upgrade brickpost, or use another --home',
    });
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

const older = new Map<number, string>();

/** The tables and columns of the catalog schema `version` (1 to SCHEMA_VERSION), as tablesOf gives them. */
export function schemaAt(version: number): string {
  let s = older.get(version);
  if (s === undefined) {
    const mem = new Database(':memory:');
    try {
      for (const m of MIGRATIONS.slice(0, version)) mem.exec(m);
      s = tablesOf(mem).join('\n');
    } finally {
      mem.close();
    }
    older.set(version, s);
  }
  return s;
}

/**
 * Whether an unmarked file (application_id 0) is a catalog an older
 * brickpost made: its user_version one of ours and its tables and columns
 * exactly those of that schema.
 */
export function isOlderCatalog(db: Database.Database, version: number): boolean {
  return version >= 1 && version <= SCHEMA_VERSION && tablesOf(db).join('\n') === schemaAt(version);
}
