import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import * as posix from '@brickpost/posix';
import {
  BrickpostError,
  assertEntryPath,
  checkWindowsPath,
  foldKey,
  quote,
  refLength,
  toBytes,
  type ChunkRef,
  type EntryAttributes,
  type FileRecord,
  type HardRecord,
  type LinkRecord,
  type ManifestRecord,
  type SpecialRecord,
} from '@brickpost/manifest';
import type { SpaceBudget } from '../io/space.js';
import { fsPath } from '../io/fs-path.js';
import { NOT_APPLIED } from './attrs.js';
import type { DestCaps } from './dest-caps.js';
import { dbPath, type DestDb, type OpKind } from './dest-db.js';
import type { RecordStash } from './record-stash.js';
import { STAGED_IN_TREE, type OldRow } from './dest-rows.js';
import { treePath } from './staging-writer.js';
import { DestFolder } from './state.js';
import { FolderChain } from './folder-chain.js';
import { attrsKey, ChunkListDigest, lstatOrNull } from './old-tree.js';
import type { ApplyPolicy } from './policy.js';
import type { PlanGate } from './plan-gate.js';
import type { PlannedDirs } from './planned-dirs.js';
import { collisions, ExactNames, leavesDest, sweep } from './dest-view.js';

export { ChunkListDigest, loadOldTree, oldFilesFromManifest, statMatches, type OldFile } from './old-tree.js';

/** What a shipment's tree needs that DEST cannot give. */
export interface Missing {
  path: string;
  reason: string;
}

/**
 * Records planned between turns of the staging walk behind the plan
 * (PlanGate): the manifest's records come a block of thousands at a time
 * without a wait between them, so the plan gives the event loop a turn
 * itself.
 */
const TURN_RECORDS = 256;

/** Held chunks of one file whose lookup waits until the file is known to be staged (planApply). */
const HELD_DEFERRED = 4096;

/** Reasons of IngestSummary.notApplied decided while planning. */
export const NOT_CREATED = {
  outsideLink: 'symbolic links pointing outside the tree (--outside-links)',
  special: 'FIFOs and devices (--specials, as root)',
  socket: 'sockets (never created: the program that listens on one makes it)',
} as const;

/** The outcome of planning: ops are in the journal's ops table, scratch tables filled. */
export interface Plan {
  filesKept: number;
  filesStaged: number;
  bytesToStage: number;
  /** Entries of DEST moved to the undo area (replaced, deleted, or not part of the shipment). */
  retired: number;
  links: number;
  hardLinks: number;
  specials: number;
  missing: Missing[];
  /** What the shipment records that this ingest will not create or apply, by reason, and the first entries. */
  notApplied: Record<string, number>;
  notAppliedList: Array<{ path: string; reason: string }>;
  /** Groups of names the destination cannot hold apart (DestCaps), the first ones, and how many there are. */
  collisions: Array<{ parent: string; names: string[] }>;
  collisionCount: number;
}

export interface PlanOptions {
  caps: DestCaps;
  policy: ApplyPolicy;
  /** Takes the room each staged file needs (its size less its holes) as soon as it is known. */
  room?: SpaceBudget;
  /** Keeps the tree's folders for the commit's last phase. */
  dirs?: PlannedDirs;
  /** Tells a staging walk running behind the plan how far it is, and stops the plan when the walk failed (steps.ts). */
  gate?: PlanGate;
  /** Keeps the records of the files staged, for the staging walk after the plan. */
  stash?: RecordStash;
}

/**
 * Plans how DEST becomes the shipment's tree (whose records stream in
 * manifest order), writing the ops of the commit into the journal:
 *
 * - a file whose content (digest) is unchanged and whose DEST copy still
 *   matches stays in place (a `meta` op when its mode, mtime or attributes
 *   changed), unless its mode or mtime changed and it has other hard links:
 *   then it is staged (a copy) like a changed file, so the inode it shares
 *   with files elsewhere keeps its mode and time;
 * - any other file is staged: built in the staging area from the drive, from
 *   chunks DEST holds (held refs) and from deltas against basis files, then
 *   installed by rename after DEST's entry at that path is retired to undo;
 * - a new directory is created (`mkdir`), after retiring a file in its place;
 *   a folder of DEST that is not a real folder (a symbolic link to one, say)
 *   is retired like a file, and nothing below it is examined or used: it is
 *   created anew with the shipment's entries (FolderChain);
 * - a symbolic link, hard link or special file already in place as the
 *   record says stays; any other is created after every file and folder is
 *   in place (`symlink`, `hardlink`, `special`), so nothing is ever written
 *   through a link the shipment makes; links pointing out of DEST, FIFOs
 *   and devices only as the policy allows, else they are counted and
 *   listed;
 * - whatever DEST has that the tree lacks is retired (deleted files and
 *   folders, and entries nobody shipped), whole folders at once.
 *
 * On a destination that cannot tell names apart by case or normalisation
 * (DestCaps) an entry counts as present only under its exact name, and the
 * groups of names it could not hold apart are returned (the caller refuses
 * the shipment). Held and delta chunks of staged files whose data DEST lacks
 * are collected in `missing`: the caller refuses the shipment before
 * anything changes. With the Windows name rules, every path must pass them.
 * @throws BrickpostError UNSAFE_PATH, MALFORMED (a hard link to a path that is not a file of the shipment), NO_SPACE (opts.room)
 */
export async function planApply(db: DestDb, dest: string, shipment: string, records: AsyncIterable<ManifestRecord>, opts: PlanOptions): Promise<Plan> {
  const { caps, policy } = opts;
  const check = (p: string): void => {
    assertEntryPath(p);
    if (caps.windowsNames) checkWindowsPath(p);
  };
  const plan: Plan = {
    filesKept: 0,
    filesStaged: 0,
    bytesToStage: 0,
    retired: 0,
    links: 0,
    hardLinks: 0,
    specials: 0,
    missing: [],
    notApplied: {},
    notAppliedList: [],
    collisions: [],
    collisionCount: 0,
  };
  db.dropOps(shipment);
  const tree = new DestFolder(dest).stagingTree(shipment);
  let n = 0;
  const op = (
    kind: OpKind,
    path: string,
    o: {
      mode?: number;
      mtime?: string;
      oldMode?: number | null;
      oldMtime?: string | null;
      target?: string;
      attrs?: EntryAttributes;
      oldAttrs?: string | null;
    } = {},
  ): number => {
    db.addOp({
      shipment,
      n: ++n,
      kind,
      path: dbPath(path),
      mode: o.mode ?? null,
      mtime: o.mtime ?? null,
      oldMode: o.oldMode ?? null,
      oldMtime: o.oldMtime ?? null,
      target: o.target ?? null,
      attrs: o.attrs ? attrsKey(o.attrs) : null,
      oldAttrs: o.oldAttrs ?? null,
    });
    return n;
  };
  const keyOf = (name: string): string | null => (caps.caseInsensitive ? foldKey(name) : caps.normalizationInsensitive ? name.normalize('NFC') : null);
  const addNew = (p: string, type: string, action: string, k: number | null = null, digest: Buffer | null = null): void => {
    const slash = p.lastIndexOf('/');
    const key = keyOf(p.slice(slash + 1));
    db.scratch.addNew(dbPath(p), type, action, k, digest, slash < 0 ? '' : dbPath(p.slice(0, slash)), key === null ? null : dbPath(key));
  };
  const addMissing = (path: string, reason: string): void => {
    if (plan.missing.length < 10000) plan.missing.push({ path, reason });
  };
  const notApplied = (path: string, reason: string): void => {
    plan.notApplied[reason] = (plan.notApplied[reason] ?? 0) + 1;
    if (plan.notAppliedList.length < 100000) plan.notAppliedList.push({ path, reason });
  };
  const names = new ExactNames(dest, caps);
  /** DEST's current files, looked up in the manifest's order (nearly the table's). */
  const olds = db.scratch.oldCursor();
  const chain = new FolderChain();
  /** DEST's entry at p, when the folders above it are real and it has exactly that name. */
  const present = (p: string): ReturnType<typeof lstatOrNull> => (chain.parentReal(p) ? names.lstat(p) : null);

  let file: FileRecord | null = null;
  /** Whether the folder holding `file` is a real folder of DEST (else its path holds nothing yet). */
  let fileInPlace = true;
  let dig: ChunkListDigest | null = null;
  let heldMissing = 0;
  let basisProblem: string | null = null;
  /** The file has no old copy, so it is staged: its room is taken ref by ref; `holes` are its bytes that take none. */
  let staged = false;
  let holes = 0;
  /** DEST's current file at the file's path (looked up once per file). */
  let fileOld: OldRow | undefined;

  const finishFile = (): void => {
    const r = file;
    if (!r) return;
    file = null;
    const digest = dig!.digest();
    const old = fileOld;
    const same = old !== undefined && old.ok === 1 && old.digest.equals(digest);
    const metaChanged = same && (old.mode !== r.mode || old.mtime !== r.mtime);
    // loadOldTree's lstat found DEST's file as the tree says moments ago: an unchanged file is kept without a second one, unless
    // its link count decides (mode or mtime change) or DEST folds names (only an exact name counts, ExactNames).
    const known = same && !metaChanged && fileInPlace && !caps.caseInsensitive && !caps.normalizationInsensitive;
    const st = fileInPlace && !known ? names.lstat(r.p) : null;
    if (old && (known || (same && st?.isFile()))) {
      const attrsChanged = old.attrs !== attrsKey(r);
      if (!metaChanged || st!.nlink <= 1n) {
        // DEST's file holds every chunk the record names: nothing of it is looked up.
        heldToCheck.length = 0;
        plan.filesKept++;
        if (metaChanged || attrsChanged)
          op('meta', r.p, { mode: r.mode, mtime: r.mtime, oldMode: old.mode, oldMtime: old.mtime, attrs: r, oldAttrs: old.attrs });
        addNew(r.p, 'file', 'keep');
        stash?.kept();
        return;
      }
    }
    stash?.staged();
    checkHeld();
    if (heldMissing > 0)
      addMissing(
        r.p,
        `${heldMissing} chunk${heldMissing === 1 ? '' : 's'} the shipment expects in the destination are not there (the base file was changed or removed locally)`,
      );
    if (basisProblem) addMissing(r.p, basisProblem);
    plan.filesStaged++;
    plan.bytesToStage += r.size;
    if (!staged) opts.room?.take(r.size - holes);
    if (st) (op('retire', r.p, { oldMode: old ? old.mode : null, oldMtime: old ? old.mtime : null }), plan.retired++);
    // In a folder the shipment creates, the file is staged at its path in the staging tree, moved in with the folder.
    const inTree = !fileInPlace && treePath(tree, r.p) !== null;
    const k = op('install', r.p, { mode: r.mode, mtime: r.mtime, attrs: r, ...(inTree ? { target: STAGED_IN_TREE } : {}) });
    addNew(r.p, 'file', 'stage', k, digest);
  };

  /**
   * Held chunks of the current file, looked up in the held index only if
   * the file is staged: an unchanged file (most of an incremental tree)
   * is kept without a lookup per chunk. A file with more held chunks than
   * this has them looked up as they come, so memory stays bounded.
   */
  const heldToCheck: string[] = [];
  const checkHeld = (): void => {
    for (const id of heldToCheck) if (db.scratch.heldAt(Buffer.from(id, 'hex')) === undefined) heldMissing++;
    heldToCheck.length = 0;
  };
  const takeRefs = (refs: ChunkRef[]): void => {
    for (const ref of refs) {
      dig!.addRef(ref);
      if (ref.length === 1) holes += ref[0];
      else if (staged) opts.room?.take(refLength(ref));
      if (ref.length === 2) heldToCheck.push(ref[0]);
    }
    if (heldToCheck.length > HELD_DEFERRED) checkHeld();
  };

  /** Retires what is at p unless `keep` says it already is the entry; returns whether it stays. */
  const replace = (p: string, keep: (st: NonNullable<ReturnType<typeof lstatOrNull>>) => boolean): boolean => {
    const st = present(p);
    if (st && keep(st)) return true;
    if (st) (op('retire', p), plan.retired++);
    return false;
  };

  const link = (r: LinkRecord): void => {
    plan.links++;
    const kept = replace(r.p, (st) => st.isSymbolicLink() && readlinkSync(fsPath(join(dest, r.p)), { encoding: 'buffer' }).equals(toBytes(r.target)));
    addNew(r.p, 'link', kept ? 'keep' : 'create');
    if (kept) {
      op('lmeta', r.p, { mtime: r.mtime, attrs: r.o ? { o: r.o } : {} });
    } else if (leavesDest(r.p, r.target) && !policy.outsideLinks) {
      notApplied(r.p, NOT_CREATED.outsideLink);
    } else {
      op('symlink', r.p, { mtime: r.mtime, target: dbPath(r.target), attrs: r.o ? { o: r.o } : {} });
    }
  };

  const hard = (r: HardRecord): void => {
    plan.hardLinks++;
    const to = db.scratch.newEntry(dbPath(r.to));
    if (to?.type !== 'file')
      throw new BrickpostError('MALFORMED', `manifest: hard link ${quote(r.p)} names ${quote(r.to)}, which is not a file of the shipment`);
    const target = to.action === 'keep' ? names.lstat(r.to) : null;
    const kept = replace(r.p, (st) => target !== null && st.isFile() && st.ino === target.ino && st.dev === target.dev);
    addNew(r.p, 'hard', kept ? 'keep' : 'create');
    if (!kept) op('hardlink', r.p, { target: dbPath(r.to) });
  };

  const special = (r: SpecialRecord): void => {
    plan.specials++;
    const rdev = r.dev ? BigInt(posix.makedev(r.dev[0], r.dev[1])) : 0n;
    const same = (st: NonNullable<ReturnType<typeof lstatOrNull>>): boolean =>
      r.kind === 'fifo'
        ? st.isFIFO()
        : r.kind === 'socket'
          ? st.isSocket()
          : (r.kind === 'char' ? st.isCharacterDevice() : st.isBlockDevice()) && st.rdev === rdev;
    const kept = replace(r.p, same);
    addNew(r.p, 'special', kept ? 'keep' : 'create');
    if (kept) op('meta', r.p, { mode: r.mode, mtime: r.mtime, attrs: r });
    else if (r.kind === 'socket') notApplied(r.p, NOT_CREATED.socket);
    else if (!policy.specials) notApplied(r.p, NOT_CREATED.special);
    else op('special', r.p, { mode: r.mode, mtime: r.mtime, target: JSON.stringify([r.kind, r.dev ?? null]), attrs: r });
  };

  let inTx = 0;
  let index = -1;
  let sinceTurn = 0;
  const gate = opts.gate;
  const stash = opts.stash;
  db.begin();
  try {
    for await (const r of records) {
      ++index;
      if (gate?.stopped) throw gate.stopped.error;
      // The walk behind takes the record from here once it is planned, rather than read the manifest again.
      const full = gate?.put(r) === true;
      if (r.t === 'more') {
        if (file) {
          takeRefs(r.c);
          stash?.more(r);
        }
        continue;
      }
      finishFile();
      stash?.next(r);
      if (gate) {
        // Every record before this one is planned; now and then the walk behind gets the thread (its reads and the pack readers' results wait for it).
        gate.pass(index);
        if (++sinceTurn >= TURN_RECORDS || full) {
          sinceTurn = 0;
          await gate.turn();
        }
      }
      if ((r.t === 'dir' || r.t === 'file' || r.t === 'special') && (r.mode & 0o6000) !== 0 && !policy.setid) notApplied(r.p, NOT_APPLIED.setid);
      switch (r.t) {
        case 'dir': {
          check(r.p);
          opts.dirs?.add(r);
          const st = present(r.p);
          if (st?.isDirectory()) addNew(r.p, 'dir', 'keep');
          else {
            if (st) (op('retire', r.p), plan.retired++);
            op('mkdir', r.p, { mode: r.mode, mtime: r.mtime });
            addNew(r.p, 'dir', 'mkdir');
          }
          chain.enter(r.p, st?.isDirectory() === true);
          break;
        }
        case 'file':
          check(r.p);
          file = r;
          fileInPlace = chain.parentReal(r.p);
          dig = new ChunkListDigest();
          heldMissing = 0;
          basisProblem = null;
          holes = 0;
          // Below a folder DEST lacks (or holds as something else) nothing of DEST is kept or retired: no lookup per file.
          fileOld = fileInPlace ? olds.lookup(dbPath(r.p)) : undefined;
          staged = fileOld === undefined;
          if (r.b) {
            const b = db.scratch.oldEntry(dbPath(r.b[0]));
            if (!b) basisProblem = `its delta applies to ${quote(r.b[0])}, which the destination does not have`;
            else if (b.ok !== 1) basisProblem = `its delta applies to ${quote(r.b[0])}, which was changed locally`;
            else if (b.size !== r.b[1]) basisProblem = `its delta applies to ${quote(r.b[0])} of ${r.b[1]} bytes; the destination's has ${b.size}`;
          }
          takeRefs(r.c);
          break;
        case 'link':
          check(r.p);
          link(r);
          break;
        case 'hard':
          check(r.p);
          hard(r);
          break;
        case 'special':
          check(r.p);
          special(r);
          break;
      }
      if (++inTx > 20000) (db.commit(true), (inTx = 0));
    }
    finishFile();
    sweep(dest, db, (p) => (op('retire', p), plan.retired++));
    collisions(db, plan);
    db.commit();
  } catch (e) {
    db.rollback();
    throw e;
  }
  return plan;
}

/** Refuses a shipment whose held or delta data DEST lacks, naming the first files. */
export function missingError(missing: Missing[], requestFile: string | null): BrickpostError {
  const first = missing
    .slice(0, 5)
    .map((m) => `${quote(m.path)}: ${m.reason}`)
    .join('; ');
  const more = missing.length > 5 ? ` (and ${missing.length - 5} more)` : '';
  const request = requestFile ? `; request file for the publisher: ${requestFile}` : '';
  return new BrickpostError(
    'BASIS_MISSING',
    `the destination lacks data this shipment builds on, for ${missing.length} file${missing.length === 1 ? '' : 's'}: ${first}${more}; nothing was changed${request}`,
    {
      hint: requestFile
        ? `send the request file ${quote(requestFile)} to the publisher, who runs 'brickpost pack … --against ${requestFile}' to build a repair shipment`
        : 'ask the publisher for a full shipment (brickpost pack --full)',
      ...(requestFile ? { path: requestFile } : {}),
    },
  );
}
