import { linkSync, readlinkSync, symlinkSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as posix from '@brickpost/posix';
import { fromBytes, toBytes, type EntryAttributes, type ManifestRecord } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { makeFolders } from '../io/folders.js';
import { failpoint } from '../io/failpoint.js';
import { fsPath } from '../io/fs-path.js';
import { setTimesPath } from '../io/times.js';
import { CAN_SYNC_FS, syncDir, syncFilesystem } from '../io/sync.js';
import type { AttrApplier } from './attrs.js';
import { dbPath, pathFromDb, type DestDb, type JournalRow, type OpRow, type OpSelection } from './dest-db.js';
import { STAGED_IN_TREE } from './dest-rows.js';
import { FolderChain } from './folder-chain.js';
import { isSpecial, lstatIfPresent, mkdirIfAbsent, moveFolderIn, moveIfPresent, removeDir } from './moves.js';
import { setMeta, swapped } from './meta.js';
import { modeUnder, type ApplyPolicy } from './policy.js';
import { keptShipments, retentionOf } from './retention.js';
import type { DestFolder, DestState } from './state.js';
import { dropUndoFiles, chunkedShipments } from './undo-db.js';
import { compactUndo, type Prestored } from './undo-compact.js';
import { rebuildEntry, restored, sweepStore } from './undo-store.js';
import { removeTree } from '../io/remove-tree.js';

export { UNDO_KEEP } from './retention.js';

/** The ops of a shipment from the journal, paths as escaped strings, a page at a time (DestDb.ops). */
function* readOps(db: DestDb, shipment: string, which: OpSelection): Generator<OpRow> {
  for (const o of db.ops(shipment, which)) yield { ...o, path: pathFromDb(o.path) };
}

/**
 * Runs (or, after a crash, finishes) the commit of shipment j.shipment,
 * whose ops the planner wrote, in phases recorded in the journal:
 *
 *   retire   DEST's entries that are replaced or deleted move into
 *            undo/ID/N (one rename each; a folder moves whole);
 *   install  new folders are created, staged files move in by rename,
 *            entries kept in place get their new mode, mtime and
 *            attributes (through a handle that does not follow links:
 *            meta.ts);
 *   links    hard links, symbolic links and special files are made, once
 *            every file and folder is in place: nothing is written
 *            through a link the shipment made (GNU tar's delayed links);
 *   dirs     every folder gets the mode, mtime and attributes the
 *            manifest gives (deepest first, as the renames above touched
 *            them).
 *
 * Every step is idempotent (a rename whose source is gone was done), so a
 * run after a crash repeats the phase it was in. The file system is synced
 * before each phase change is recorded. Before the journal says `retire`
 * DEST is untouched; after `dirs` completes the state file is written and the
 * journal cleared.
 * @throws BrickpostError PERMISSION, IO
 */
export async function runApply(
  folder: DestFolder,
  db: DestDb,
  j: JournalRow,
  dirs: () => AsyncIterable<ManifestRecord>,
  keep: number,
  applier: AttrApplier,
  leftOver: LeftOver = () => undefined,
  /** Chunks of the files it retires, stored while it was staged (prestore.ts). */
  pre: Prestored | null = null,
): Promise<void> {
  const staged = folder.staging(j.shipment);
  const tree = folder.stagingTree(j.shipment);
  const undo = folder.undo(j.shipment);
  const policy = j.policy;
  try {
    if (j.phase === 'retire') {
      await makeFolders(undo, 0o700);
      for (const o of readOps(db, j.shipment, 'retire')) {
        moveIfPresent(join(folder.dest, o.path), join(undo, String(o.n)));
        failpoint('apply-retire');
      }
      j = await advance(folder, db, j, 'install');
    }
    if (j.phase === 'install') {
      // The last folder moved in whole from the staging tree: the files staged in the tree below it moved with it, and their
      // ops are passed over (DestDb.installPhase) after it and after each other op below it.
      let moved: string | null = null;
      let passOver = false;
      for (const row of db.installPhase(j.shipment, () => (passOver ? dbPath(moved!.slice(0, -1)) : null))) {
        const o = { ...row, path: pathFromDb(row.path) };
        const target = join(folder.dest, o.path);
        passOver = moved !== null && o.path.startsWith(moved);
        if (o.kind === 'mkdir') {
          if (moveFolderIn(join(tree, o.path), target)) {
            moved = o.path + '/';
            passOver = true;
          } else mkdirIfAbsent(target);
        } else if (o.kind === 'install') {
          if (o.target !== STAGED_IN_TREE) moveIfPresent(join(staged, String(o.n)), target);
          else if (moved === null || !o.path.startsWith(moved)) moveIfPresent(join(tree, o.path), target);
        } else
          setMeta(target, modeUnder(policy, o.mode!), o.mtime!, isSpecial(target) ? 'special' : 'file', { attrs: attrsOf(o.attrs), applier, replace: true });
        failpoint('apply-install');
      }
      j = await advance(folder, db, j, 'links');
    }
    if (j.phase === 'links') {
      for (const o of readOps(db, j.shipment, 'links')) {
        makeLink(folder.dest, o, policy, applier);
        failpoint('apply-links');
      }
      j = await advance(folder, db, j, 'dirs');
    }
    failpoint('apply-dirs');
    await applyDirMeta(db, folder.dest, dirs(), { policy, applier });
    failpoint('apply-state');
    await finish(folder, db, j, keep, leftOver, pre);
  } catch (e) {
    throw toEnvironmentError(e, 'commit failed', { on: 'destination', then: 'run the same ingest again to finish the commit' });
  }
}

/**
 * Runs (or finishes) the rollback of shipment j.shipment, the last one
 * applied: the reverse of runApply, in phases
 *
 *   unstage  what the shipment installed moves out (to undo/ID/out/N),
 *            folders it created are removed, kept entries get their old
 *            mode and mtime back;
 *   restore  what it retired moves back from undo/ID/N (first rebuilt
 *            there from the chunk undo store when kept by chunks);
 *   dirs     folders get the mode and mtime of the tree rolled back to.
 * @throws BrickpostError PERMISSION, IO
 */
export async function runRollback(
  folder: DestFolder,
  db: DestDb,
  j: JournalRow,
  dirs: () => AsyncIterable<ManifestRecord>,
  keep: number,
  applier: AttrApplier,
  leftOver: LeftOver = () => undefined,
): Promise<void> {
  const undo = folder.undo(j.shipment);
  const out = join(undo, 'out');
  const ops = (): Generator<OpRow> => readOps(db, j.shipment, 'undo');
  const policy = j.policy;
  try {
    if (j.phase === 'unstage') {
      await makeFolders(out, 0o700);
      for (const o of ops()) {
        const target = join(folder.dest, o.path);
        if (o.kind === 'install' || o.kind === 'hardlink' || o.kind === 'symlink' || o.kind === 'special') moveIfPresent(target, join(out, String(o.n)));
        else if (o.kind === 'mkdir') removeDir(target, join(out, String(o.n)));
        // An entry changed locally since (a link, a folder) is left as it is: never followed.
        else if (o.kind === 'meta' && o.old_mode !== null)
          setMeta(target, modeUnder(policy, o.old_mode), o.old_mtime!, isSpecial(target) ? 'special' : 'file', {
            lenient: true,
            attrs: attrsOf(o.old_attrs),
            applier,
            replace: true,
          });
        failpoint('rollback-unstage');
      }
      j = await advance(folder, db, j, 'restore');
    }
    if (j.phase === 'restore') {
      for (const o of ops()) {
        if (o.kind !== 'retire') continue;
        const target = join(folder.dest, o.path);
        const from = join(undo, String(o.n));
        rebuildEntry(folder, db, j.shipment, o.n);
        const moved = moveIfPresent(from, target);
        restored(db, j.shipment, o.n);
        if (moved && o.old_mode !== null && o.old_mtime !== null) setMeta(target, modeUnder(policy, o.old_mode), o.old_mtime, 'file', { lenient: true });
        failpoint('rollback-restore');
      }
      j = await advance(folder, db, j, 'dirs');
    }
    // What rollback put back is DEST's own (a link where the tree has a folder, say): left as it is.
    await applyDirMeta(db, folder.dest, dirs(), { policy, applier, lenient: true });
    await removeTree(undo);
    db.dropOps(j.shipment);
    dropUndoFiles(db, j.shipment);
    await finish(folder, db, j, keep, leftOver);
  } catch (e) {
    throw toEnvironmentError(e, 'rollback failed', { on: 'destination', then: 'run the same rollback again to finish it' });
  }
}

async function advance(folder: DestFolder, db: DestDb, j: JournalRow, phase: string): Promise<JournalRow> {
  if (CAN_SYNC_FS) await syncFilesystem(folder.dest);
  else await syncDir(folder.dest);
  const next = { ...j, phase };
  db.setJournal(next);
  return next;
}

/** Told what a finished commit could not tidy (the undo data left as whole files), for a warning. */
export type LeftOver = (message: string) => void;

async function finish(folder: DestFolder, db: DestDb, j: JournalRow, keep: number, leftOver: LeftOver, pre: Prestored | null = null): Promise<void> {
  const state = JSON.parse(j.state) as DestState;
  await folder.writeState(state);
  db.setJournal(null);
  // Done: what cannot be removed now is removed by the next ingest (it clears staging and prunes again).
  await removeTree(folder.staging(j.shipment)).catch(() => undefined);
  await pruneUndo(folder, db, state, keep, undefined, pre?.chunks);
  // Done after the commit is recorded: a kill leaves whole files, which the next commit turns into chunks.
  await compactUndo(folder, db, pre).catch((e: unknown) => {
    leftOver(
      `the undo data of shipment ${j.shipment} stays as whole files for now (${e instanceof Error ? e.message : String(e)}); the next ingest turns it into chunks`,
    );
  });
}

function attrsOf(json: string | null): EntryAttributes {
  return json ? (JSON.parse(json) as EntryAttributes) : {};
}

/**
 * Makes one entry of the links phase. Each is created where nothing is
 * (the retire phase cleared its path), never through a link; an entry
 * already there as the op would make it is a resumed commit's work. A
 * hard link whose file is not there (left out by --skip-damaged) is left
 * out too.
 * @throws BrickpostError UNSAFE_ENTRY (something else in the way); Node errors otherwise
 */
function makeLink(dest: string, o: OpRow, policy: ApplyPolicy, applier: AttrApplier): void {
  const at = join(dest, o.path);
  const attrs = attrsOf(o.attrs);
  if (o.kind === 'lmeta') {
    if (!lstatIfPresent(at)?.isSymbolicLink()) return;
    applier.toLink(at, o.path, attrs);
    setTimesPath(at, o.mtime!);
    return;
  }
  if (o.kind === 'hardlink') {
    const from = join(dest, pathFromDb(o.target!));
    const src = lstatIfPresent(from);
    if (!src) return applier.miss('hard links to files left out', o.path);
    try {
      linkSync(fsPath(from), fsPath(at));
    } catch (e) {
      const now = (e as NodeJS.ErrnoException).code === 'EEXIST' ? lstatIfPresent(at) : null;
      if (!now || now.ino !== src.ino || now.dev !== src.dev) throw e;
    }
    return;
  }
  if (o.kind === 'symlink') {
    const target = toBytes(pathFromDb(o.target!));
    try {
      symlinkSync(target, fsPath(at));
    } catch (e) {
      if (
        (e as NodeJS.ErrnoException).code !== 'EEXIST' ||
        !lstatIfPresent(at)?.isSymbolicLink() ||
        !readlinkSync(fsPath(at), { encoding: 'buffer' }).equals(target)
      )
        throw e;
    }
    applier.toLink(at, o.path, attrs);
    setTimesPath(at, o.mtime!);
    return;
  }
  const [kind, dev] = JSON.parse(o.target!) as ['fifo' | 'char' | 'block', [number, number] | null];
  const mode = modeUnder(policy, o.mode!);
  try {
    if (kind === 'fifo') posix.mkfifo(fsPath(at), 0o600);
    else posix.mknod(fsPath(at), (kind === 'char' ? 0o020000 : 0o060000) | 0o600, dev![0], dev![1]);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !isSpecial(at)) throw e;
  }
  setMeta(at, mode, o.mtime!, 'special', { attrs, applier });
}

/**
 * Gives every folder of a tree its mode, mtime and attributes (as the
 * policy allows), deepest first, so a folder without owner write or search
 * permission is set after everything below it. An entry that is not a
 * folder is refused (UNSAFE_ENTRY), or with `lenient` left alone; it is
 * never followed, and neither is anything below it (FolderChain).
 */
export async function applyDirMeta(
  db: DestDb,
  dest: string,
  records: AsyncIterable<ManifestRecord>,
  opts: { policy: ApplyPolicy; applier: AttrApplier; lenient?: boolean },
): Promise<void> {
  const lenient = opts.lenient === true;
  db.resetDirMeta();
  db.begin();
  try {
    const chain = new FolderChain();
    for await (const r of records) {
      if (r.t !== 'dir') continue;
      const p = r.p;
      const st = chain.parentReal(p) ? lstatIfPresent(join(dest, p)) : null;
      chain.enter(p, st?.isDirectory() === true);
      const d = r;
      if (st?.isDirectory())
        db.addDirMeta(toBytes(p).toString('latin1'), r.mode, r.mtime, d.x || d.o || d.acl ? JSON.stringify({ x: d.x, o: d.o, acl: d.acl }) : null);
      else if (st && !lenient) throw swapped(join(dest, p), 'dir');
    }
    db.commit();
  } catch (e) {
    db.rollback();
    throw e;
  }
  for (const d of db.dirMetaDeepestFirst()) {
    const attrs = d.attrs ? (JSON.parse(d.attrs) as EntryAttributes) : undefined;
    setMeta(join(dest, fromBytes(Buffer.from(d.path, 'latin1'))), modeUnder(opts.policy, d.mode), d.mtime, 'dir', {
      lenient,
      ...(attrs ? { attrs, applier: opts.applier } : {}),
    });
  }
  db.clearDirMeta();
}

/**
 * Keeps the undo data (areas, ops, chunk lists) of the shipments the
 * retention keeps (retention.ts; `keep` overrides its count), removes the
 * rest, then the chunks no kept file names but those in `spare` (stored
 * for files about to be recorded); with `floor`, also the undo data of the
 * shipments up to that sequence number. Returns the bytes of chunks freed.
 */
export async function pruneUndo(
  folder: DestFolder,
  db: DestDb,
  state: DestState,
  keep?: number,
  floor?: number,
  spare?: ReadonlyMap<string, unknown>,
): Promise<number> {
  const live = keptShipments(
    state.applied.filter((a) => floor === undefined || a.seq > floor),
    retentionOf(state, keep),
  );
  const root = join(folder.state, 'undo');
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!live.has(name)) {
      await removeTree(join(root, name)).catch(() => undefined);
    }
  }
  const shipments = db.opShipments();
  for (const s of shipments) if (!live.has(s)) db.dropOps(s);
  for (const s of chunkedShipments(db)) if (!live.has(s)) dropUndoFiles(db, s);
  // A chunk left now is removed by the next prune: nothing names it.
  return sweepStore(folder, db, spare).catch(() => 0);
}
