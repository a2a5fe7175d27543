import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrickpostError, isBrickpostError, quote } from '@brickpost/manifest';
import type { CatalogRecoverOptions, LostItem, RecoverSummary } from '../api/recover.js';
import { commandLine } from '../io/command-line.js';
import { describeHolders, fileHolders } from '../io/holders.js';
import { salvageTables } from '../io/salvage.js';
import { setAside } from '../io/set-aside.js';
import { hasIdentity, loadIdentity } from '../keys/index.js';
import { Catalog } from '../catalog/index.js';
import { ingestDests } from '../catalog/ingests.js';
import { rebuildFromDest, rebuildFromDrive, rebuildIdentity, type Rebuilt } from './rebuild.js';

/** The catalog's tables, parents before the rows that refer to them. */
const TABLES = [
  'meta',
  'trust',
  'datasets',
  'shipments',
  'shipment_recipients',
  'packs',
  'chunks',
  'sigs',
  'tree_files',
  'tree_chunks',
  'receipts',
  'ingests',
  'custody',
  'drive_marks',
  'seen_shipments',
] as const;

/** What losing rows of each table means, and what to do about it. */
const MEANING: Record<(typeof TABLES)[number], string> = {
  meta: "the planner's measured drive speeds (it uses its default until the next packs)",
  trust: "keys you trusted: trust them again with 'brickpost trust add KEY --name NAME' (your own key is rebuilt from your key files)",
  datasets:
    'datasets you publish: the next pack of one whose record is lost starts a new dataset (a new id and key) that subscribers must ingest into a new folder; give the drive of its last shipment with --drive to keep its chain',
  shipments: 'shipments you packed: the next pack of their dataset starts its chain over, unless the drive of its last shipment is given with --drive',
  shipment_recipients: 'whom each shipment was for: the next pack of their dataset is self-contained (ships everything) instead of incremental',
  packs: "where an interrupted pack's packs are: pack it again instead of --resume",
  chunks: "where an interrupted pack's chunks are: pack it again instead of --resume",
  sigs: 'signatures of shipped file versions: the next pack reads those files again and sends whole chunks instead of deltas',
  tree_files: 'the trees of shipments you packed: the next pack of their dataset is self-contained instead of incremental',
  tree_chunks: 'the trees of shipments you packed: the next pack of their dataset is self-contained instead of incremental',
  receipts:
    "subscribers' receipts: import them again with 'brickpost receipt import FILE'; until then the next pack assumes each subscriber holds the last shipment sent to it",
  ingests:
    "what was ingested where: run recover again with each destination's --dest; until then 'brickpost wipe' needs --force and 'ingest' does not know those destinations when it checks for older shipments",
  custody:
    'custody events recorded only in this home (receipts issued, events a drive could not take); those on drives stay there, and --drive copies them back',
  drive_marks:
    "when your drives were shipped and returned: 'brickpost subscribers' shows them as packed until you record them again with 'brickpost drive shipped|returned ID --at TIME'",
  seen_shipments: "the newest shipments seen on drives: 'brickpost history' says how far behind one a destination is again once you verify a drive of it",
};

/**
 * Recovers the home's catalog (`brickpost catalog recover`): a damaged file
 * (or one that is not SQLite) is set aside, never deleted, beside itself
 * as catalog.sqlite.damaged-TIME (with its -wal and -shm files); a new
 * catalog is made; every row that can still be read is copied, table by
 * table; then what lies outside the catalog rebuilds what it can (your key
 * files, the destinations and drives given, and the destinations the damaged
 * catalog still names). The summary lists what was kept, rebuilt and lost,
 * and what each loss means. An intact catalog is not set aside (unless
 * `force`), only added to from the sources given; a database of another
 * program is refused, untouched. `homeArgs`: `--home DIR` when the user
 * gave it, for the commands hints print.
 * @throws BrickpostError NOT_FOUND (no catalog), LOCKED (in use by another process), FOREIGN_DATABASE, PERMISSION, NO_SPACE, IO
 */
export async function recoverCatalog(home: string, opts: CatalogRecoverOptions, homeArgs: readonly string[] = []): Promise<RecoverSummary> {
  const file = join(home, 'catalog.sqlite');
  if (!existsSync(file))
    throw new BrickpostError('NOT_FOUND', `there is no catalog in ${quote(home)}`, { path: file, hint: 'give the home you use with --home' });
  const holders = fileHolders([file, `${file}-wal`, `${file}-shm`]);
  if (holders.length > 0) {
    throw new BrickpostError('LOCKED', `the catalog ${quote(file)} is in use by ${describeHolders(holders)}`, {
      path: file,
      hint: 'wait until it is done (or end it), then run the command again',
    });
  }
  const found = diagnose(file);
  const summary: RecoverSummary = { file, intact: found === 'intact', setAside: [], kept: [], rebuilt: [], lost: [] };
  const fresh = found !== 'intact' || opts.force === true;
  // An intact catalog is only added to, and only when there is something to add from.
  if (!fresh && opts.name === undefined && (opts.dests ?? []).length === 0 && (opts.drives ?? []).length === 0) return summary;
  if (fresh) summary.setAside = await setAside(file);
  const catalog = new Catalog(file);
  let closed = false;
  try {
    if (fresh && found !== 'not-sqlite') summary.kept = salvageTables(summary.setAside[0]!, catalog.db, TABLES);
    if (found === 'not-sqlite')
      summary.lost.push({ what: 'every record of the old catalog', meaning: 'the file was not a SQLite database: only what lies outside it is rebuilt' });
    await rebuild(catalog, home, opts, summary, homeArgs);
    for (const t of summary.kept) if (t.lost !== 0) summary.lost.push(lostRows(t.table as (typeof TABLES)[number], t.lost, t.error));
    closed = true;
    catalog.close();
  } finally {
    if (!closed) catalog.db.close();
  }
  return summary;
}

/** Rebuilds from the key files, the destinations (given, and those the catalog names) and the drives given. */
async function rebuild(catalog: Catalog, home: string, opts: CatalogRecoverOptions, summary: RecoverSummary, homeArgs: readonly string[]): Promise<void> {
  const me = hasIdentity(home) ? loadIdentity(home, opts.name ?? 'brickpost user') : null;
  if (!me) {
    summary.lost.push({ what: 'your identity', meaning: `${quote(home)} holds no key files: nothing is rebuilt from destinations or drives` });
    return;
  }
  absorb(summary, rebuildIdentity(catalog, me, opts.name, commandLine(['catalog', 'recover', ...homeArgs, '--name', 'NAME'])));
  const named = ingestDests(catalog);
  for (const dest of new Set([...(opts.dests ?? []), ...named]))
    absorb(summary, await attempt(`destination ${quote(dest)}`, () => rebuildFromDest(catalog, dest, me)));
  for (const drive of opts.drives ?? []) absorb(summary, await attempt(`drive ${quote(drive)}`, () => rebuildFromDrive(catalog, drive, me)));
}

/** What the catalog file is: intact, damaged, or not SQLite at all; another program's database (or a journal) is refused. */
function diagnose(file: string): 'intact' | 'damaged' | 'not-sqlite' {
  try {
    return withCatalog(file, (c) => (c.db.pragma('quick_check', { simple: true }) === 'ok' ? 'intact' : 'damaged'));
  } catch (e) {
    if (isBrickpostError(e, 'DATABASE_DAMAGED')) return 'damaged';
    if (isBrickpostError(e, 'FOREIGN_DATABASE') && !readFileSync(file).subarray(0, 16).equals(Buffer.from('SQLite format 3\0', 'latin1'))) return 'not-sqlite';
    throw e;
  }
}

function withCatalog<T>(file: string, fn: (c: Catalog) => T): T {
  const c = new Catalog(file);
  try {
    return fn(c);
  } finally {
    c.db.close();
  }
}

/** Runs one rebuild; a source that cannot be read is reported as lost, the others go on. */
async function attempt(what: string, fn: () => Promise<Rebuilt>): Promise<Rebuilt> {
  try {
    return await fn();
  } catch (e) {
    if (!isBrickpostError(e) || e.category === 'busy') throw e;
    return { rebuilt: [], lost: [{ what: `what ${what} holds`, meaning: `it could not be read (${e.message})` }] };
  }
}

function absorb(summary: RecoverSummary, r: Rebuilt): void {
  summary.rebuilt.push(...r.rebuilt);
  summary.lost.push(...r.lost);
}

function lostRows(table: (typeof TABLES)[number], n: number | null, error: string | null): LostItem {
  const count = n === null ? 'an unknown number of rows' : `${n} row${n === 1 ? '' : 's'}`;
  return { what: `${count} of table ${table}${error ? ` (${error})` : ''}`, meaning: MEANING[table] };
}
