// brickpost's two SQLite databases, the catalog and a destination's
// journal: which files they take as theirs (new, ours, an older
// brickpost's) and which they refuse untouched (another program's, the
// other kind, not SQLite); SQLite's errors as environment errors naming
// the file; salvaging what a damaged file still holds.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrickpostError, isBrickpostError } from '@brickpost/manifest';
import { Catalog } from '../src/catalog/catalog.js';
import { SCHEMA_VERSION } from '../src/catalog/migrate.js';
import m001 from '../src/catalog/migrations/001-initial.js';
import m002 from '../src/catalog/migrations/002-chains.js';
import m003 from '../src/catalog/migrations/003-sig-index.js';
import m004 from '../src/catalog/migrations/004-drive-sets.js';
import m005 from '../src/catalog/migrations/005-custody.js';
import m006 from '../src/catalog/migrations/006-trust-recipient.js';
import m007 from '../src/catalog/migrations/007-lag.js';
import { DestDb, isOlderJournal, JOURNAL_VERSION } from '../src/ingest/dest-db.js';
import { salvageTables } from '../src/io/salvage.js';
import { sqliteErrorCode } from '../src/io/sqlite-codes.js';
import { fromSqliteError } from '../src/io/sqlite-errors.js';
import { guardDatabase } from '../src/io/sqlite-guard.js';
import { APPLICATION_IDS } from '../src/io/sqlite-open.js';

const root = mkdtempSync(join(tmpdir(), 'bp-db-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const dir = (): string => {
  const d = join(root, String(++n));
  mkdirSync(d);
  return d;
};
const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const ids = (file: string): { app: number; version: number } => {
  const db = new Database(file, { readonly: true });
  try {
    return { app: db.pragma('application_id', { simple: true }) as number, version: db.pragma('user_version', { simple: true }) as number };
  } finally {
    db.close();
  }
};
const refused = (code: string, what: RegExp) => (e: unknown) => isBrickpostError(e) && e.code === code && what.test(e.message);

/** Overwrites the first page of `table` (its root, which holds all of a small table's rows) with garbage. */
function damageTable(file: string, table: string): void {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const page = db.pragma('page_size', { simple: true }) as number;
  const rootpage = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').pluck().get(table) as number;
  db.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(page, 0xa5), 0, page, (rootpage - 1) * page);
  closeSync(fd);
}

test('SQLite codes map to environment, busy and damage codes; SQL errors stay bugs', () => {
  const cases: Array<[string, string | null]> = [
    ['SQLITE_BUSY', 'LOCKED'],
    ['SQLITE_BUSY_SNAPSHOT', 'LOCKED'],
    ['SQLITE_LOCKED_SHAREDCACHE', 'LOCKED'],
    ['SQLITE_PROTOCOL', 'LOCKED'],
    ['SQLITE_IOERR', 'IO'],
    ['SQLITE_IOERR_FSYNC', 'IO'],
    ['SQLITE_IOERR_WRITE', 'IO'],
    ['SQLITE_CANTOPEN', 'IO'],
    ['SQLITE_NOMEM', 'IO'],
    ['SQLITE_FULL', 'NO_SPACE'],
    ['SQLITE_READONLY', 'PERMISSION'],
    ['SQLITE_READONLY_DBMOVED', 'PERMISSION'],
    ['SQLITE_PERM', 'PERMISSION'],
    ['SQLITE_AUTH', 'PERMISSION'],
    ['SQLITE_CORRUPT', 'DATABASE_DAMAGED'],
    ['SQLITE_CORRUPT_INDEX', 'DATABASE_DAMAGED'],
    ['SQLITE_NOTADB', 'DATABASE_DAMAGED'],
    ['SQLITE_INTERRUPT', 'CANCELLED'],
    ['SQLITE_ERROR', null],
    ['SQLITE_CONSTRAINT_UNIQUE', null],
    ['SQLITE_MISUSE', null],
    ['SQLITE_RANGE', null],
  ];
  for (const [code, want] of cases) assert.equal(sqliteErrorCode(code), want, code);
});

test('a mapped error names the file, its holder or its recovery command, and keeps the cause', () => {
  const place = { file: '/h/catalog.sqlite', what: 'catalog', recover: 'brickpost catalog recover --home /h' };
  const sqlite = (code: string, message: string) => Object.assign(new Error(message), { code });
  const io = fromSqliteError(sqlite('SQLITE_IOERR_FSYNC', 'disk I/O error'), place) as BrickpostError;
  assert.equal(io.code, 'IO');
  assert.match(io.message, /catalog "\/h\/catalog.sqlite": sync failed \(SQLITE_IOERR_FSYNC\)/);
  assert.equal(io.path, place.file);
  assert.ok(io.hint);
  const damaged = fromSqliteError(sqlite('SQLITE_CORRUPT', 'database disk image is malformed'), place) as BrickpostError;
  assert.equal(damaged.code, 'DATABASE_DAMAGED');
  assert.match(damaged.hint!, /'brickpost catalog recover --home \/h'/);
  const full = fromSqliteError(sqlite('SQLITE_FULL', 'database or disk is full'), place) as BrickpostError;
  assert.equal(full.code, 'NO_SPACE');
  const busy = fromSqliteError(sqlite('SQLITE_BUSY', 'database is locked'), place) as BrickpostError;
  assert.equal(busy.code, 'LOCKED');
  assert.match(busy.message, /is locked by another process/);
  const bug = sqlite('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed');
  assert.equal(fromSqliteError(bug, place), bug);
  const other = new Error('not sqlite');
  assert.equal(fromSqliteError(other, place), other);
});

test('a guarded database maps errors of statements, iterations and transactions', () => {
  const file = join(dir(), 'x.sqlite');
  const raw = new Database(file);
  raw.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3)');
  raw.function('fails', (x: unknown) => {
    if (x === 2) throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_READ' });
    return x;
  });
  const db = guardDatabase(raw, (e) => fromSqliteError(e, { file, what: 'test database', recover: '-' }));
  assert.ok(db instanceof Database);
  assert.equal(db.prepare('SELECT count(*) FROM t').pluck().get(), 3);
  const it = db.prepare('SELECT fails(x) FROM t').pluck().iterate();
  assert.equal(it.next().value, 1);
  assert.throws(() => it.next(), refused('IO', /test database .*: read failed/));
  assert.throws(() => db.transaction(() => db.prepare('SELECT fails(2)').get())(), refused('IO', /read failed/));
  assert.throws(() => db.exec('SELECT fails(2)'), refused('IO', /read failed/));
  // A lock another connection holds: LOCKED once the (zero) busy timeout passes.
  const other = new Database(file);
  other.exec('BEGIN EXCLUSIVE');
  db.pragma('busy_timeout = 0');
  assert.throws(() => db.prepare('SELECT * FROM t').all(), refused('LOCKED', /test database .* is locked by/));
  other.exec('COMMIT');
  other.close();
  db.close();
});

test('new catalogs and journals are marked with their application_id and schema version', () => {
  const d = dir();
  const c = new Catalog(join(d, 'catalog.sqlite'));
  c.close();
  assert.deepEqual(ids(join(d, 'catalog.sqlite')), { app: APPLICATION_IDS.catalog, version: SCHEMA_VERSION });
  new DestDb(d).close();
  assert.deepEqual(ids(join(d, 'journal.sqlite')), { app: APPLICATION_IDS.journal, version: JOURNAL_VERSION });
  // An empty file (a placeholder another tool made) is new too.
  const e = dir();
  writeFileSync(join(e, 'catalog.sqlite'), '');
  new Catalog(join(e, 'catalog.sqlite')).close();
  assert.equal(ids(join(e, 'catalog.sqlite')).app, APPLICATION_IDS.catalog);
});

test('the catalog and a journal keep at most 8 MB of pages each (the build of SQLite here defaults to 16 MB)', () => {
  const d = dir();
  const c = new Catalog(join(d, 'catalog.sqlite'));
  const j = new DestDb(d);
  try {
    const raw = new Database(':memory:');
    const builtIn = raw.pragma('cache_size', { simple: true }) as number;
    raw.close();
    for (const db of [c.db, j.db]) {
      const kib = db.pragma('cache_size', { simple: true }) as number;
      assert.ok(kib < 0 && -kib <= 8000, `cache_size ${kib}`);
      assert.ok(-kib < -builtIn, `below the built-in ${builtIn}`);
    }
  } finally {
    c.close();
    j.close();
  }
});

test("another program's database, the other kind, and a file that is not SQLite are refused untouched", () => {
  const d = dir();
  const file = join(d, 'catalog.sqlite');
  const other = new Database(file);
  other.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT); INSERT INTO photos (path) VALUES ('a.jpg')");
  other.close();
  const before = sha(file);
  assert.throws(
    () => new Catalog(file),
    refused('FOREIGN_DATABASE', /catalog ".*catalog.sqlite" is another program's database \(tables "photos"\); brickpost leaves it as it is/),
  );
  assert.equal(sha(file), before);
  assert.ok(!existsSync(`${file}-wal`), 'not even the journal mode was changed');
  // Another program that marks its files.
  const marked = join(dir(), 'catalog.sqlite');
  const m = new Database(marked);
  m.pragma('application_id = 1234');
  m.close();
  assert.throws(() => new Catalog(marked), refused('FOREIGN_DATABASE', /application_id 0x000004d2/));
  // A destination's journal copied to the catalog's path, and the other way round.
  const j = dir();
  new DestDb(j).close();
  assert.throws(() => new Catalog(join(j, 'journal.sqlite')), refused('FOREIGN_DATABASE', /is a brickpost destination's journal, not a catalog/));
  const k = dir();
  new Catalog(join(k, 'journal.sqlite')).close();
  assert.throws(() => new DestDb(k), refused('FOREIGN_DATABASE', /is a brickpost home's catalog, not a destination journal/));
  // Not SQLite at all.
  const text = join(dir(), 'catalog.sqlite');
  writeFileSync(text, 'name,size\na.jpg,12\n');
  assert.throws(() => new Catalog(text), refused('FOREIGN_DATABASE', /is not a SQLite database \(it starts with "name,size\\na.jpg,"\)/));
  assert.equal(readFileSync(text, 'utf8'), 'name,size\na.jpg,12\n');
  // Our tables and one more: not a schema brickpost ever wrote.
  const extra = join(dir(), 'catalog.sqlite');
  const x = new Database(extra);
  x.exec(m001 + 'CREATE TABLE notes (t TEXT);');
  x.pragma('user_version = 1');
  x.close();
  assert.throws(() => new Catalog(extra), refused('FOREIGN_DATABASE', /tables .*"notes"/));
});

test('catalogs of every earlier schema without an application_id are adopted, their rows kept', () => {
  // The migrations as each earlier brickpost ran them, without marking the file.
  const migrations = [m001, m002, m003, m004, m005, m006, m007];
  assert.equal(migrations.length, SCHEMA_VERSION);
  for (let v = 1; v <= SCHEMA_VERSION; v++) {
    const file = join(dir(), 'catalog.sqlite');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    for (const m of migrations.slice(0, v)) old.exec(m);
    old.pragma(`user_version = ${v}`);
    old.prepare("INSERT INTO trust (key_id, name, public_key, added_at, self) VALUES ('K', 'alice', 'RW…', 'now', 0)").run();
    old.close();
    const c = new Catalog(file);
    assert.equal(c.db.prepare("SELECT name FROM trust WHERE key_id = 'K'").pluck().get(), 'alice', `schema ${v}`);
    c.close();
    assert.deepEqual(ids(file), { app: APPLICATION_IDS.catalog, version: SCHEMA_VERSION }, `schema ${v}`);
  }
});

test('a catalog from a newer brickpost is refused as such', () => {
  const file = join(dir(), 'catalog.sqlite');
  new Catalog(file).close();
  const db = new Database(file);
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  assert.throws(() => new Catalog(file), refused('UNSUPPORTED_VERSION', /newer than this brickpost knows/));
});

test('journals written before they were versioned are adopted, with the columns added since', () => {
  assert.equal(
    isOlderJournal([
      'held(id,path,offset,len)',
      'journal(shipment,kind,phase,state)',
      'new(path,type,action,n,digest)',
      'old(path,type,size,mode,mtime,digest,ok)',
      'ops(shipment,n,kind,path,mode,mtime,old_mode,old_mtime)',
    ]),
    true,
  );
  assert.equal(
    isOlderJournal([
      'held(id,path,offset,len)',
      'journal(shipment,kind,phase,state,policy)',
      'new(path,type,action,n,digest,parent,fkey)',
      'old(path,type,size,mode,mtime,digest,ok,attrs)',
      'ops(shipment,n,kind,path,mode,mtime,old_mode,old_mtime,target,attrs,old_attrs)',
    ]),
    true,
  );
  assert.equal(
    isOlderJournal([
      'held(id,path,offset,len)',
      'journal(shipment,kind,phase,state,extra)',
      'new(path,type,action,n,digest)',
      'old(path,type,size,mode,mtime,digest,ok)',
      'ops(shipment,n,kind,path,mode,mtime,old_mode,old_mtime)',
    ]),
    false,
  );
  assert.equal(isOlderJournal(['journal(shipment,kind,phase,state)']), false);
  const d = dir();
  const old = new Database(join(d, 'journal.sqlite'));
  old.exec(`CREATE TABLE journal (shipment TEXT PRIMARY KEY, kind TEXT NOT NULL, phase TEXT NOT NULL, state TEXT NOT NULL);
    CREATE TABLE ops (shipment TEXT NOT NULL, n INTEGER NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL, mode INTEGER, mtime TEXT, old_mode INTEGER, old_mtime TEXT, PRIMARY KEY (shipment, n)) WITHOUT ROWID;
    CREATE TABLE old (path TEXT PRIMARY KEY, type TEXT NOT NULL, size INTEGER NOT NULL, mode INTEGER NOT NULL, mtime TEXT NOT NULL, digest BLOB, ok INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE new (path TEXT PRIMARY KEY, type TEXT NOT NULL, action TEXT NOT NULL, n INTEGER, digest BLOB) WITHOUT ROWID;
    CREATE TABLE held (id BLOB PRIMARY KEY, path TEXT NOT NULL, offset INTEGER NOT NULL, len INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO ops VALUES ('S', 1, 'retire', 'a', NULL, NULL, 420, '1');`);
  old.close();
  const j = new DestDb(d);
  assert.deepEqual(j.db.prepare('SELECT shipment, n, target FROM ops').all(), [{ shipment: 'S', n: 1, target: null }]);
  j.close();
  assert.deepEqual(ids(join(d, 'journal.sqlite')), { app: APPLICATION_IDS.journal, version: JOURNAL_VERSION });
});

test('a damaged catalog is refused as damaged, with the command that recovers it', () => {
  const file = join(dir(), 'catalog.sqlite');
  const c = new Catalog(file, { recover: 'brickpost catalog recover --home /x' });
  c.close();
  damageTable(file, 'trust');
  const d = new Catalog(file, { recover: 'brickpost catalog recover --home /x' });
  assert.throws(() => d.db.prepare('SELECT * FROM trust').all(), refused('DATABASE_DAMAGED', /catalog ".*" is damaged/));
  d.db.close();
  // Cut short: SQLite says "database disk image is malformed" at the first read past the end.
  const cut = join(dir(), 'catalog.sqlite');
  new Catalog(cut).close();
  writeFileSync(cut, readFileSync(cut).subarray(0, 3000));
  assert.throws(
    () => new Catalog(cut, { recover: 'brickpost catalog recover' }),
    (e: unknown) => isBrickpostError(e, 'DATABASE_DAMAGED') && /'brickpost catalog recover'/.test(e.hint ?? ''),
  );
});

test('salvage copies every readable table and says which could not be read', () => {
  const file = join(dir(), 'catalog.sqlite');
  const c = new Catalog(file);
  const db = c.db;
  db.prepare("INSERT INTO trust (key_id, name, public_key, added_at, self) VALUES ('K1', 'a', 'RW1', 't', 0), ('K2', 'b', 'RW2', 't', 0)").run();
  db.prepare("INSERT INTO datasets (id, name, publisher, secret, created_at) VALUES ('D', 'd', 'P', x'00', 't')").run();
  db.prepare("INSERT INTO shipments (id, dataset_id, seq, label, created_at, role, state) VALUES ('S1', 'D', 1, '', 't', 'published', 'sealed')").run();
  db.prepare("INSERT INTO custody (shipment_id, drive, n, type, at, hash, line, on_drive) VALUES ('S1', '1 of 1', 1, 'packed', 't', 'h', 'l', 1)").run();
  c.close();
  damageTable(file, 'trust');
  const fresh = new Catalog(join(dir(), 'catalog.sqlite'));
  const kept = salvageTables(file, fresh.db, ['trust', 'datasets', 'shipments', 'custody']);
  const by = new Map(kept.map((t) => [t.table, t]));
  assert.equal(by.get('trust')!.kept, 0);
  assert.ok(by.get('trust')!.error, 'the damaged table says why');
  assert.deepEqual([by.get('datasets')!.kept, by.get('shipments')!.kept, by.get('custody')!.kept], [1, 1, 1]);
  assert.deepEqual([by.get('datasets')!.lost, by.get('shipments')!.lost, by.get('custody')!.lost], [0, 0, 0]);
  // A row whose parent was lost is refused, and counted lost.
  const orphan = new Catalog(join(dir(), 'catalog.sqlite'));
  const r = salvageTables(file, orphan.db, ['shipments']);
  assert.deepEqual([r[0]!.kept, r[0]!.lost], [0, 1]);
  fresh.close();
  orphan.close();
});
