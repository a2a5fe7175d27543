/**
 * Where a shipment's browse index lives and how it is made: one file per
 * manifest in the home's cache (`HOME/cache/browse/`), named by a hash of
 * the shipment id and the manifest's signed SHA-256, so another manifest
 * under the same id never finds it. It is built by one pass over the
 * manifest as `Engine.list` reads it (same checks: signature, digest,
 * records), rows spilled to SQLite, under a temporary name renamed into
 * place once complete and synced; builders racing each other each rename a
 * complete file. A file that is not a complete index of that manifest
 * (damaged, foreign, of another manifest) is deleted and built again: it is
 * a cache. The most recently used KEEP indexes are kept.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { age, BrickpostError, quote, toBytes } from '@brickpost/manifest';
import { BrowseIndexReader, BrowseIndexWriter, type BrowseIndexKey } from '../catalog/browse-index.js';
import type { OpenedShipment } from '../drive/open.js';
import { toEnvironmentError } from '../io/errors.js';
import { fromSqliteError, sqliteCode } from '../io/sqlite-errors.js';
import { shellArg } from '../io/command.js';
import { syncDir } from '../io/sync.js';
import { listOpened } from '../verify/list.js';

/** How many indexes a home keeps (the most recently used). */
export const KEEP = 4;
/** A temporary file this old is a killed builder's, removed when the folder is pruned. */
const STALE_TEMP_MS = 24 * 3600 * 1000;
const SUFFIX = '.sqlite';

/** The folder of a home's browse indexes. */
export function browseDir(home: string): string {
  return join(home, 'cache', 'browse');
}

/** The index file of one manifest of a shipment. */
export function indexFile(home: string, key: Omit<BrowseIndexKey, 'entries'>): string {
  const name = createHash('sha256').update(`${key.shipment}\n${key.digest}`).digest('hex');
  return join(browseDir(home), `${name}${SUFFIX}`);
}

/** Builds in progress in this process, by index file: a second caller waits for the first. */
const building = new Map<string, Promise<void>>();

/**
 * The browse index of opened shipment `s`, built first when there is none
 * (or only an unusable file). `built` says whether this call built it.
 * @throws BrickpostError as Engine.list does while building; NO_SPACE, PERMISSION, IO for the cache
 */
export async function browseIndex(
  home: string,
  s: OpenedShipment,
  key: BrowseIndexKey,
  ids: age.Identity[],
): Promise<{ index: BrowseIndexReader; built: boolean }> {
  const file = indexFile(home, key);
  const found = tryOpen(file, key);
  if (found) return { index: found, built: false };
  let pending = building.get(file);
  const mine = pending === undefined;
  if (pending === undefined) {
    pending = build(home, file, s, key, ids).finally(() => building.delete(file));
    building.set(file, pending);
  }
  await pending;
  const index = tryOpen(file, key);
  if (!index) throw new BrickpostError('IO', `the browse index ${quote(file)} just built cannot be read`, { path: file, hint: `rm ${shellArg(file)}` });
  return { index, built: mine };
}

/** The index at `file` when it is a complete index of `key` (its use noted by its time); else null, the file deleted. */
function tryOpen(file: string, key: BrowseIndexKey): BrowseIndexReader | null {
  let reader: BrowseIndexReader;
  try {
    reader = new BrowseIndexReader(file, key);
  } catch (e) {
    if (sqliteCode(e) !== 'SQLITE_CANTOPEN') discard(file);
    return null;
  }
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // The time only orders pruning; a read-only cache still serves.
  }
  return reader;
}

/**
 * Deletes an index file that cannot be used.
 * @throws BrickpostError PERMISSION, READ_ONLY, IO
 */
export function discard(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch (e) {
    throw toEnvironmentError(e, `cannot delete the unusable browse index ${quote(file)}`, { on: 'home', path: file });
  }
}

async function build(home: string, file: string, s: OpenedShipment, key: BrowseIndexKey, ids: age.Identity[]): Promise<void> {
  const dir = browseDir(home);
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const place = { file: tmp, what: 'browse index', recover: `rm ${shellArg(tmp)}` };
  let writer: BrowseIndexWriter | null = null;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writer = new BrowseIndexWriter(tmp);
    // Manifest order is depth-first, every folder before what it holds (the reader refuses anything else): the folders above the current entry are a stack.
    const stack: { prefix: string; n: number }[] = [{ prefix: '', n: 0 }];
    for await (const e of listOpened(s, ids)) {
      while (stack.length > 1 && !e.path.startsWith(stack[stack.length - 1]!.prefix)) stack.pop();
      const top = stack[stack.length - 1]!;
      const name = e.path.slice(top.prefix.length);
      if (name.includes('/')) throw new BrickpostError('MALFORMED', `the manifest lists ${quote(e.path)} before its folder`, { path: s.dir });
      const n = writer.add(top.n, toBytes(name), e);
      if (e.type === 'dir') stack.push({ prefix: `${e.path}/`, n });
    }
    writer.finish({ shipment: key.shipment, digest: key.digest });
    writer = null;
    const fh = await open(tmp, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    await syncDir(dir);
  } catch (e) {
    writer?.abort();
    await rm(tmp, { force: true }).catch(() => undefined);
    const mapped = fromSqliteError(e, place);
    throw mapped instanceof BrickpostError ? mapped : toEnvironmentError(mapped, `cannot write the browse index ${quote(file)}`, { on: 'home', path: tmp });
  }
  prune(dir, file);
}

/** Deletes all but the KEEP most recently used indexes of `dir` (never `keep`), and killed builders' temporary files. */
export function prune(dir: string, keep: string): void {
  try {
    const now = Date.now();
    const indexes: { file: string; used: number }[] = [];
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      const st = statSync(file, { throwIfNoEntry: false });
      if (!st?.isFile()) continue;
      if (name.endsWith('.tmp')) {
        if (now - st.mtimeMs > STALE_TEMP_MS) rmSync(file, { force: true });
      } else if (name.endsWith(SUFFIX) && file !== keep) indexes.push({ file, used: st.mtimeMs });
    }
    indexes.sort((a, b) => b.used - a.used);
    for (const old of indexes.slice(KEEP - 1)) rmSync(old.file, { force: true });
  } catch {
    // Pruning a cache is best effort: what is left is pruned next time.
  }
}
