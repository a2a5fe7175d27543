/**
 * What the harness checks after a kill, each check returning the problems it
 * found as readable lines (empty when all holds), so one trial reports every
 * problem at once:
 *
 * - a destination shows no partial file under a final name: every entry
 *   outside `.brickpost/` is a path of the old or the new tree, and every
 *   regular file is byte-identical to that path's file in one of them (and
 *   every symbolic link points where one of them says);
 * - a SQLite file passes `PRAGMA integrity_check` (opened read-only; or a
 *   copy, when a kill left a journal to roll back or a write-ahead log to
 *   recover first, which a read-only connection cannot do: the next
 *   command does it);
 * - a drive holds complete shipments and `.part` ones, and nothing else.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { snapshot, type Node } from '../support.js';

/** Shipment folders on a drive are named like 20261122T050436Z-ace26a4a (drive/layout.ts). */
const SHIPMENT_ID = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/;

/** A destination's tree outside `.brickpost/` (empty when the folder does not exist yet). */
export function treeOf(dest: string): Map<string, Node> {
  return existsSync(dest) ? snapshot(dest) : new Map();
}

/** Problems of a destination's tree `seen` after a kill, given the tree before this ingest (`old`) and the shipment's (`next`). */
export function partialFiles(seen: Map<string, Node>, old: Map<string, Node>, next: Map<string, Node>): string[] {
  const out: string[] = [];
  for (const [path, node] of seen) {
    const a = old.get(path);
    const b = next.get(path);
    if (!a && !b) out.push(`${path} (${node.type}) is in neither tree`);
    else if (node.type === 'other') out.push(`${path} is neither a file, a folder nor a symbolic link`);
    else if (node.type === 'link' && node.sha256 !== a?.sha256 && node.sha256 !== b?.sha256) out.push(`${path} is a link to ${node.sha256}, in neither tree`);
    else if (node.type === 'dir' && a?.type !== 'dir' && b?.type !== 'dir') out.push(`${path} is a folder, a file in the trees`);
    else if (node.type === 'file' && node.sha256 !== a?.sha256 && node.sha256 !== b?.sha256) {
      out.push(`${path} is visible but matches neither tree (${node.size} bytes; old ${a?.size ?? '-'}, new ${b?.size ?? '-'})`);
    }
  }
  return out;
}

/** The paths and contents (not modes or times) of a tree, to tell which tree a destination is at. */
export function contentKey(tree: Map<string, Node>): string {
  return JSON.stringify([...tree].map(([p, n]) => [p, n.type, n.sha256 ?? '']).sort());
}

/** Problems `PRAGMA integrity_check` finds in a SQLite file (none when the file does not exist yet). */
export function integrity(file: string): string[] {
  if (!existsSync(file)) return [];
  try {
    return check(file, file, true);
  } catch (e) {
    // A hot rollback journal or an unindexed write-ahead log (SQLITE_READONLY_ROLLBACK, _RECOVERY): checked in a copy.
    if (!String((e as { code?: string }).code).startsWith('SQLITE_READONLY')) return [`${file}: cannot be checked: ${(e as Error).message}`];
    const copy = mkdtempSync(join(tmpdir(), 'bp-kill-check-'));
    try {
      for (const suffix of ['', '-wal', '-journal']) if (existsSync(file + suffix)) copyFileSync(file + suffix, join(copy, basename(file) + suffix));
      return check(join(copy, basename(file)), file, false);
    } catch (e2) {
      return [`${file}: cannot be checked: ${(e2 as Error).message}`];
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }
}

/** `PRAGMA integrity_check` of `path`, its problems named after `file`. @throws what opening it throws */
function check(path: string, file: string, readonly: boolean): string[] {
  const db = new Database(path, { readonly, fileMustExist: true });
  try {
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const bad = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    return bad.map((r) => `${file}: ${r}`);
  } finally {
    db.close();
  }
}

/** What the state folder of a destination holds once an ingest succeeded (state.ts); `undo/` holds anything. */
const STATE_FILES = /^(state\.json|journal\.sqlite(-wal|-shm)?|manifests\/[^/]+\.age|undo\/.+|undo-chunks\/[0-9a-f]{2}\/[0-9a-f]{64})$/;

/**
 * Files in DEST/.brickpost that no successful ingest should leave: staged
 * or rebuilt files, temporary files, the in-progress marker, a lock file
 * that still names a holder (the file itself stays, emptied on release).
 */
export function leftovers(dest: string): string[] {
  const state = join(dest, '.brickpost');
  if (!existsSync(state)) return [];
  const files = readdirSync(state, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory());
  return files
    .map((e) => relative(state, join(e.parentPath, e.name)))
    .filter((p) => !STATE_FILES.test(p) && !(p === 'lock' && statSync(join(state, p)).size === 0))
    .sort();
}

/** True when the destination journal has an apply or rollback in progress (to be finished by the next run). */
export function commitPending(dest: string): boolean {
  const file = join(dest, '.brickpost', 'journal.sqlite');
  if (!existsSync(file)) return false;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) FROM journal').pluck().get() as number) > 0;
  } finally {
    db.close();
  }
}

/** The publisher's interrupted (killed or stopped) shipment of a dataset in a home's catalog, as pack --resume finds it. */
export function interruptedShipment(home: string, dataset: string): string | null {
  const file = join(home, 'catalog.sqlite');
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        "SELECT s.id FROM shipments s JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? AND s.role = 'published' AND s.state IN ('writing', 'interrupted') ORDER BY s.seq DESC LIMIT 1",
      )
      .pluck()
      .get(dataset) as string | undefined;
    return row ?? null;
  } finally {
    db.close();
  }
}

/** The publisher's shipment of a dataset a pack left 'sealing' (signed on every drive, not all in place): the next pack puts it in place. */
export function sealingShipment(home: string, dataset: string): string | null {
  const file = join(home, 'catalog.sqlite');
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        "SELECT s.id FROM shipments s JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? AND s.role = 'published' AND s.state = 'sealing' ORDER BY s.seq DESC LIMIT 1",
      )
      .pluck()
      .get(dataset) as string | undefined;
    return row ?? null;
  } finally {
    db.close();
  }
}

/** True when a home's catalog has a row for shipment `id` (in any state). */
export function catalogKnows(home: string, id: string): boolean {
  const file = join(home, 'catalog.sqlite');
  if (!existsSync(file)) return false;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT 1 FROM shipments WHERE id = ?').get(id) !== undefined;
  } finally {
    db.close();
  }
}

/** The shipment folders of a drive, by kind. */
/**
 * The catalog's record of a published shipment's tree (what later
 * incremental shipments build on), one line per file and one for its
 * distinct chunks, to compare with an uninterrupted run's. Chunk ids
 * depend on the dataset's secret: with `ids` false (runs whose homes made
 * their own secrets) only their number is compared.
 */
export function catalogTree(home: string, id: string, ids: boolean): string[] {
  const db = new Database(join(home, 'catalog.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const files = db
      .prepare('SELECT path, size, mode, mtime_ns, ctime_ns, ino, chunks, sig_id FROM tree_files WHERE shipment_id = ? ORDER BY path')
      .all(id) as Array<{
      path: string;
      size: number;
      mode: number;
      mtime_ns: string;
      ctime_ns: string;
      ino: string;
      chunks: Buffer;
      sig_id: number | null;
    }>;
    const lines = files.map((f) => {
      const chunks = ids ? f.chunks.toString('hex') : `${f.chunks.length} bytes of chunk ids`;
      return `file ${f.path}: size ${f.size} mode ${f.mode} mtime ${f.mtime_ns} ctime ${f.ctime_ns} ino ${f.ino} ${f.sig_id === null ? 'no signature' : 'signature'}, chunks ${chunks}`;
    });
    const chunks = db.prepare('SELECT chunk FROM tree_chunks WHERE shipment_id = ? ORDER BY chunk').pluck().all(id) as Buffer[];
    const digest = createHash('sha256');
    for (const c of chunks) digest.update(c);
    lines.push(`tree_chunks: ${chunks.length}${ids ? `, sha256 ${digest.digest('hex')}` : ''}`);
    return lines;
  } finally {
    db.close();
  }
}

export interface DriveContents {
  /** Shipment ids under their final name, sorted. */
  complete: string[];
  /** Shipment folders still named `.part`. */
  parts: string[];
  /** Anything else in DRIVE/brickpost. */
  other: string[];
}

const PART = '.part';
const CUSTODY = '.custody';
/** `ID<suffix>` for a shipment id. */
const isOf = (n: string, suffix: string): boolean => n.endsWith(suffix) && SHIPMENT_ID.test(n.slice(0, -suffix.length));

/** What a drive's brickpost/ folder holds. */
export function driveContents(drive: string): DriveContents {
  const dir = join(drive, 'brickpost');
  const names = existsSync(dir) ? readdirSync(dir).sort() : [];
  return {
    complete: names.filter((n) => SHIPMENT_ID.test(n)),
    parts: names.filter((n) => isOf(n, PART)),
    // A complete shipment's custody log (FORMAT.md §3.1) is written next to it by the verify after a kill.
    other: names.filter((n) => !SHIPMENT_ID.test(n) && !isOf(n, PART) && !(isOf(n, CUSTODY) && names.includes(n.slice(0, -CUSTODY.length)))),
  };
}
