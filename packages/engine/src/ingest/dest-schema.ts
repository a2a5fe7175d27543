/**
 * The tables of a destination's journal (dest-db.ts), how journals of
 * earlier versions are recognised, and how they are brought up to date.
 */
import type Database from 'better-sqlite3';

/** The schema version of a journal this brickpost writes (journals before it were unversioned: 0; 2 adds the chunk undo store's tables). */
export const JOURNAL_VERSION = 2;

/** The tables of the first journals, and the columns every version of each had. */
const FIRST_JOURNAL: Readonly<Record<string, readonly string[]>> = {
  held: ['id', 'path', 'offset', 'len'],
  journal: ['shipment', 'kind', 'phase', 'state'],
  new: ['path', 'type', 'action', 'n', 'digest'],
  old: ['path', 'type', 'size', 'mode', 'mtime', 'digest', 'ok'],
  ops: ['shipment', 'n', 'kind', 'path', 'mode', 'mtime', 'old_mode', 'old_mtime'],
};
/** The columns added since, by table. */
const ADDED: Readonly<Record<string, readonly string[]>> = {
  journal: ['policy'],
  new: ['parent', 'fkey'],
  old: ['attrs'],
  ops: ['target', 'attrs', 'old_attrs'],
};

/**
 * Whether the tables of an unmarked file (as tablesOf gives them) are an
 * unversioned journal: exactly the journal's tables, each with its first
 * columns in order followed by some of those added since.
 */
export function isOlderJournal(tables: string[]): boolean {
  const names = Object.keys(FIRST_JOURNAL);
  if (tables.length !== names.length) return false;
  return tables.every((line, i) => {
    const m = /^([a-z_]+)\((.*)\)$/.exec(line);
    if (!m || m[1] !== names[i]) return false;
    const cols = m[2]!.split(',');
    const first = FIRST_JOURNAL[m[1]!]!;
    const rest = cols.slice(first.length);
    return first.every((c, j) => cols[j] === c) && rest.every((c, j) => (ADDED[m[1]!] ?? [])[j] === c);
  });
}

/** Adds columns a table lacks (a journal from an earlier version). */
export function addColumns(db: Database.Database, table: string, columns: string[]): void {
  const have = new Set(
    db
      .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
      .all()
      .map((c) => c.name),
  );
  for (const c of columns) if (!have.has(c.split(' ')[0]!)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${c}`);
}

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  shipment TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  phase TEXT NOT NULL,
  state TEXT NOT NULL,
  policy TEXT
);
CREATE TABLE IF NOT EXISTS ops (
  shipment TEXT NOT NULL,
  n INTEGER NOT NULL,
  kind TEXT NOT NULL,
  path TEXT NOT NULL,
  mode INTEGER,
  mtime TEXT,
  old_mode INTEGER,
  old_mtime TEXT,
  target TEXT,
  attrs TEXT,
  old_attrs TEXT,
  PRIMARY KEY (shipment, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS old (
  path TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  size INTEGER NOT NULL,
  mode INTEGER NOT NULL,
  mtime TEXT NOT NULL,
  digest BLOB,
  ok INTEGER NOT NULL,
  attrs TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS old_digest ON old (digest);
CREATE TABLE IF NOT EXISTS new (
  path TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  action TEXT NOT NULL,
  n INTEGER,
  digest BLOB,
  parent TEXT,
  fkey TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS held (
  id BLOB PRIMARY KEY,
  path TEXT NOT NULL,
  offset INTEGER NOT NULL,
  len INTEGER NOT NULL
) WITHOUT ROWID;
`;
