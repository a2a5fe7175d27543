import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { BrickpostError, checkPath, checkWindowsPath, quote, refLength, type ChunkRef, type FileRecord, type ManifestRecord } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import type { DestDb } from './dest-db.js';
import { FolderChain } from './folder-chain.js';
import { STATE_DIR } from './state.js';

/** A file of DEST's current tree, as the planner sees it. */
export interface OldFile {
  path: string;
  size: number;
  mode: number;
  mtime: string;
  /** SHA-256 of the file's chunk list (ids and lengths): equal digests, equal content. */
  digest: Buffer;
  /** Chunks with their offsets in the file. */
  chunks: Array<{ id: Buffer; offset: number; len: number }>;
  /** DEST's file still is what the tree says (type, size, mtime); only then is its data used. */
  ok: boolean;
}

/** What a shipment's tree needs that DEST cannot give. */
export interface Missing {
  path: string;
  reason: string;
}

/** The outcome of planning: ops are in the journal's ops table, scratch tables filled. */
export interface Plan {
  filesKept: number;
  filesStaged: number;
  bytesToStage: number;
  /** Entries of DEST moved to the undo area (replaced, deleted, or not part of the shipment). */
  retired: number;
  missing: Missing[];
}

/** The digest of a chunk list: SHA-256 over each chunk's 32-byte id and 4-byte big-endian length. */
export class ChunkListDigest {
  private readonly h = createHash('sha256');
  private readonly len = Buffer.alloc(4);
  add(id: Buffer | string, length: number): void {
    this.h.update(typeof id === 'string' ? Buffer.from(id, 'hex') : id);
    this.len.writeUInt32BE(length);
    this.h.update(this.len);
  }
  digest(): Buffer {
    return this.h.digest();
  }
}

/**
 * Loads DEST's current tree into the scratch tables: each file with its
 * digest and whether DEST's file still matches it (lstat: regular file,
 * size and mtime to the nanosecond), and, for files that match, where each
 * chunk is (the `held` index). The tree comes from the stored manifest of
 * the last shipment applied, or from a scan of a folder brickpost never
 * wrote (seeding).
 */
export async function loadOldTree(db: DestDb, files: AsyncIterable<OldFile>): Promise<{ files: number; ok: number }> {
  db.resetScratch();
  const putOld = db.db.prepare('INSERT OR REPLACE INTO old (path, type, size, mode, mtime, digest, ok) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const putHeld = db.db.prepare('INSERT OR IGNORE INTO held (id, path, offset, len) VALUES (?, ?, ?, ?)');
  let n = 0;
  let ok = 0;
  let inTx = 0;
  db.db.exec('BEGIN');
  try {
    for await (const f of files) {
      putOld.run(f.path, 'file', f.size, f.mode, f.mtime, f.digest, f.ok ? 1 : 0);
      n++;
      if (f.ok) {
        ok++;
        for (const c of f.chunks) putHeld.run(c.id, f.path, c.offset, c.len);
      }
      inTx += 1 + f.chunks.length;
      if (inTx > 20000) db.db.exec('COMMIT; BEGIN'), (inTx = 0);
    }
    db.db.exec('COMMIT');
  } catch (e) {
    if (db.db.inTransaction) db.db.exec('ROLLBACK');
    throw e;
  }
  return { files: n, ok };
}

/**
 * The files of a stored manifest, each checked against DEST with lstat; a
 * file below a folder that is no longer a real folder of DEST (a symbolic
 * link, say) does not match, so nothing is read through it.
 */
export async function* oldFilesFromManifest(dest: string, records: AsyncIterable<ManifestRecord>): AsyncGenerator<OldFile> {
  const chain = new FolderChain();
  let cur: OldFile | null = null;
  let dig: ChunkListDigest | null = null;
  let at = 0;
  const take = (refs: ChunkRef[]): void => {
    for (const ref of refs) {
      const len = refLength(ref);
      const id = Buffer.from(ref[0], 'hex');
      dig!.add(id, len);
      cur!.chunks.push({ id, offset: at, len });
      at += len;
    }
  };
  const done = (): OldFile | null => {
    if (!cur) return null;
    const f = cur;
    f.digest = dig!.digest();
    cur = null;
    return f;
  };
  for await (const r of records) {
    if (r.t === 'more') {
      if (cur) take(r.c);
      continue;
    }
    const f = done();
    if (f) yield f;
    if (r.t === 'dir') {
      chain.enter(r.p, chain.parentReal(r.p) && lstatOrNull(join(dest, r.p))?.isDirectory() === true);
    } else if (r.t === 'file') {
      cur = { path: r.p, size: r.size, mode: r.mode, mtime: r.mtime, digest: Buffer.alloc(0), chunks: [], ok: chain.parentReal(r.p) && statMatches(dest, r) };
      dig = new ChunkListDigest();
      at = 0;
      take(r.c);
    }
  }
  const f = done();
  if (f) yield f;
}

/** Whether DEST's entry at r.p is still the file the tree says: a regular file of that size and mtime. */
export function statMatches(dest: string, r: { p: string; size: number; mtime: string }): boolean {
  const st = lstatOrNull(join(dest, r.p));
  if (st === null || !st.isFile() || st.size !== BigInt(r.size)) return false;
  const d = st.mtimeNs - BigInt(r.mtime);
  // utimes takes seconds as a double: a time set through it may be off by about a microsecond.
  return d >= -MTIME_SLACK_NS && d <= MTIME_SLACK_NS;
}

/** Whether DEST's entry at p is a regular file with other hard links (its inode shared with files elsewhere). */
function multiplyLinked(p: string): boolean {
  const st = lstatOrNull(p);
  return st !== null && st.isFile() && st.nlink > 1n;
}

/** How far a file's mtime may be from the manifest's and still count as the same (see statMatches). */
const MTIME_SLACK_NS = 4000n;

function lstatOrNull(p: string): BigIntStats | null {
  try {
    return lstatSync(p, { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw toEnvironmentError(e, `cannot examine ${quote(p)}`);
  }
}

/**
 * Plans how DEST becomes the shipment's tree (whose records stream in
 * manifest order), writing the ops of the commit into the journal:
 *
 * - a file whose content (digest) is unchanged and whose DEST copy still
 *   matches stays in place (a `meta` op when its mode or mtime changed),
 *   unless its mode or mtime changed and it has other hard links: then it
 *   is staged (a copy) like a changed file, so the inode it shares with
 *   files elsewhere keeps its mode and time;
 * - any other file is staged: built in the staging area from the drive, from
 *   chunks DEST holds (held refs) and from deltas against basis files, then
 *   installed by rename after DEST's entry at that path is retired to undo;
 * - a new directory is created (`mkdir`), after retiring a file in its place;
 *   a folder of DEST that is not a real folder (a symbolic link to one, say)
 *   is retired like a file, and nothing below it is examined or used: it is
 *   created anew with the shipment's entries (FolderChain);
 * - whatever DEST has that the tree lacks is retired (deleted files and
 *   folders, and entries nobody shipped), whole folders at once.
 *
 * Held and delta chunks of staged files whose data DEST lacks are collected
 * in `missing`: the caller refuses the shipment before anything changes.
 * With `windowsNames`, every path must also pass the Windows name rules.
 * @throws BrickpostError UNSAFE_PATH
 */
export async function planApply(db: DestDb, dest: string, shipment: string, records: AsyncIterable<ManifestRecord>, opts: { windowsNames?: boolean } = {}): Promise<Plan> {
  const check = (p: string): void => {
    checkPath(p);
    if (opts.windowsNames) checkWindowsPath(p);
  };
  const plan: Plan = { filesKept: 0, filesStaged: 0, bytesToStage: 0, retired: 0, missing: [] };
  const sql = db.db;
  db.dropOps(shipment);
  let n = 0;
  const putOp = sql.prepare('INSERT INTO ops (shipment, n, kind, path, mode, mtime, old_mode, old_mtime) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const op = (kind: string, path: string, mode: number | null = null, mtime: string | null = null, oldMode: number | null = null, oldMtime: string | null = null): number => {
    putOp.run(shipment, ++n, kind, path, mode, mtime, oldMode, oldMtime);
    return n;
  };
  const putNew = sql.prepare('INSERT INTO new (path, type, action, n, digest) VALUES (?, ?, ?, ?, ?)');
  const getOld = sql.prepare('SELECT size, mode, mtime, digest, ok FROM old WHERE path = ?');
  const getHeld = sql.prepare('SELECT 1 FROM held WHERE id = ?').pluck();
  const addMissing = (path: string, reason: string): void => {
    if (plan.missing.length < 10000) plan.missing.push({ path, reason });
  };

  const chain = new FolderChain();
  let file: FileRecord | null = null;
  /** Whether the folder holding `file` is a real folder of DEST (else its path holds nothing yet). */
  let fileInPlace = true;
  let dig: ChunkListDigest | null = null;
  let heldMissing = 0;
  let basisProblem: string | null = null;

  const finishFile = (): void => {
    const r = file;
    if (!r) return;
    file = null;
    const digest = dig!.digest();
    const old = getOld.get(r.p) as { size: number; mode: number; mtime: string; digest: Buffer; ok: number } | undefined;
    if (fileInPlace && old && old.ok === 1 && old.digest.equals(digest)) {
      const metaChanged = old.mode !== r.mode || old.mtime !== r.mtime;
      if (!metaChanged || !multiplyLinked(join(dest, r.p))) {
        plan.filesKept++;
        if (metaChanged) op('meta', r.p, r.mode, r.mtime, old.mode, old.mtime);
        putNew.run(r.p, 'file', 'keep', null, null);
        return;
      }
    }
    if (heldMissing > 0) addMissing(r.p, `${heldMissing} chunk${heldMissing === 1 ? '' : 's'} the shipment expects in the destination are not there (the base file was changed or removed locally)`);
    if (basisProblem) addMissing(r.p, basisProblem);
    plan.filesStaged++;
    plan.bytesToStage += r.size;
    const st = fileInPlace ? lstatOrNull(join(dest, r.p)) : null;
    if (st) op('retire', r.p, null, null, old ? old.mode : null, old ? old.mtime : null), plan.retired++;
    const k = op('install', r.p, r.mode, r.mtime);
    putNew.run(r.p, 'file', 'stage', k, digest);
  };

  const takeRefs = (refs: ChunkRef[]): void => {
    for (const ref of refs) {
      dig!.add(ref[0], refLength(ref));
      if (ref.length === 2 && !getHeld.get(Buffer.from(ref[0], 'hex'))) heldMissing++;
    }
  };

  let inTx = 0;
  sql.exec('BEGIN');
  try {
    for await (const r of records) {
      if (r.t === 'more') {
        if (file) takeRefs(r.c);
        continue;
      }
      finishFile();
      if (r.t === 'dir') {
        check(r.p);
        const st = chain.parentReal(r.p) ? lstatOrNull(join(dest, r.p)) : null;
        if (st?.isDirectory()) {
          putNew.run(r.p, 'dir', 'keep', null, null);
        } else {
          if (st) op('retire', r.p), plan.retired++;
          op('mkdir', r.p, r.mode, r.mtime);
          putNew.run(r.p, 'dir', 'mkdir', null, null);
        }
        chain.enter(r.p, st?.isDirectory() === true);
      } else if (r.t === 'file') {
        check(r.p);
        file = r;
        fileInPlace = chain.parentReal(r.p);
        dig = new ChunkListDigest();
        heldMissing = 0;
        basisProblem = null;
        if (r.b) {
          const b = getOld.get(r.b[0]) as { size: number; ok: number } | undefined;
          if (!b) basisProblem = `its delta applies to ${quote(r.b[0])}, which the destination does not have`;
          else if (b.ok !== 1) basisProblem = `its delta applies to ${quote(r.b[0])}, which was changed locally`;
          else if (b.size !== r.b[1]) basisProblem = `its delta applies to ${quote(r.b[0])} of ${r.b[1]} bytes; the destination's has ${b.size}`;
        }
        takeRefs(r.c);
      }
      if (++inTx > 20000) sql.exec('COMMIT; BEGIN'), (inTx = 0);
    }
    finishFile();
    // Anything DEST has that the new tree lacks is retired, whole folders at once.
    const getNew = sql.prepare('SELECT type, action FROM new WHERE path = ?');
    const sweep = (rel: string): void => {
      let names: import('node:fs').Dirent[];
      try {
        names = readdirSync(rel ? join(dest, rel) : dest, { withFileTypes: true });
      } catch (e) {
        throw toEnvironmentError(e, `cannot list ${quote(rel || dest)}`);
      }
      for (const d of names) {
        if (!rel && d.name === STATE_DIR) continue;
        const p = rel ? `${rel}/${d.name}` : d.name;
        const t = getNew.get(p) as { type: string; action: string } | undefined;
        if (t === undefined) {
          op('retire', p);
          plan.retired++;
        } else if (t.type === 'dir' && t.action === 'keep' && d.isDirectory()) {
          sweep(p);
        }
      }
    };
    sweep('');
    sql.exec('COMMIT');
  } catch (e) {
    if (sql.inTransaction) sql.exec('ROLLBACK');
    throw e;
  }
  return plan;
}

/** Refuses a shipment whose held or delta data DEST lacks, naming the first files. */
export function missingError(missing: Missing[], requestFile: string | null): BrickpostError {
  const first = missing.slice(0, 5).map((m) => `${quote(m.path)}: ${m.reason}`).join('; ');
  const more = missing.length > 5 ? ` (and ${missing.length - 5} more)` : '';
  const request = requestFile ? `; request file for the publisher: ${requestFile}` : '';
  return new BrickpostError('BASIS_MISSING', `the destination lacks data this shipment builds on, for ${missing.length} file${missing.length === 1 ? '' : 's'}: ${first}${more}; nothing was changed${request}`, {
    hint: requestFile
      ? `send the request file ${quote(requestFile)} to the publisher, who runs 'brickpost pack … --against ${requestFile}' to build a repair shipment`
      : 'ask the publisher for a full shipment (brickpost pack --full)',
    ...(requestFile ? { path: requestFile } : {}),
  });
}
