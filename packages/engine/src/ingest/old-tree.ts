import { createHash, type Hash } from 'node:crypto';
import { lstatSync, type BigIntStats } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { getSystemErrorName } from 'node:util';
import * as posix from '@brickpost/posix';
import { ScanField, SCAN_FIELDS } from '@brickpost/posix';
import { join } from 'node:path';
import { quote, refLength, type ChunkRef, type EntryAttributes, type ManifestRecord } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { fsPath } from '../io/fs-path.js';
import { dbPath, type DestDb } from './dest-db.js';
import { FolderChain } from './folder-chain.js';

/** A file of DEST's current tree, as the planner sees it. */
export interface OldFile {
  path: string;
  size: number;
  mode: number;
  mtime: string;
  /** SHA-256 of the file's chunk list (ids and lengths, holes included): equal digests, equal content. */
  digest: Buffer;
  /** Chunks with their offsets in the file (holes left out). */
  chunks: Array<{ id: Buffer; offset: number; len: number }>;
  /** DEST's file still is what the tree says (type, size, mtime); only then is its data used. */
  ok: boolean;
  /** The attributes its record carried (a seeded tree has none known). */
  attrs?: EntryAttributes;
}

const HOLE = Buffer.alloc(32);

/**
 * The digest of a chunk list, compared only within one ingest (the journal's
 * scratch tables): a list of one chunk is that chunk's 32-byte id and its
 * 4-byte big-endian length as they are (36 bytes, no hashing: most files
 * are one chunk); any other list is SHA-256 over each chunk's id and length
 * (32 bytes, so never equal to a one-chunk digest). A hole is an all-zero
 * id and its length, in pieces below 2^32.
 */
export class ChunkListDigest {
  private h: Hash | null = null;
  private first: Buffer | null = null;
  private n = 0;
  add(id: Buffer | string, length: number): void {
    const entry = Buffer.allocUnsafe(36);
    if (typeof id === 'string') entry.write(id, 0, 32, 'hex');
    else id.copy(entry, 0, 0, 32);
    entry.writeUInt32BE(length, 32);
    if (++this.n === 1) {
      this.first = entry;
      return;
    }
    if (this.h === null) this.h = createHash('sha256').update(this.first!);
    this.h.update(entry);
  }
  addRef(ref: ChunkRef): void {
    if (ref.length !== 1) return this.add(ref[0], refLength(ref));
    for (let left = ref[0]; left > 0; left -= 0xffffffff) this.add(HOLE, Math.min(left, 0xffffffff));
  }
  digest(): Buffer {
    if (this.n === 1) return this.first!;
    return (this.h ?? createHash('sha256')).digest();
  }
}

/** The attributes of a record as the journal keeps and compares them: JSON of `{x, o, acl}` in that order, or null for none. */
export function attrsKey(a: EntryAttributes): string | null {
  return a.x || a.o || a.acl ? JSON.stringify({ ...(a.x ? { x: a.x } : {}), ...(a.o ? { o: a.o } : {}), ...(a.acl ? { acl: a.acl } : {}) }) : null;
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
  db.scratch.reset();
  let n = 0;
  let ok = 0;
  // One transaction: scratch rows need no commit of their own (each cost a sync and a rewrite of every page it touched).
  db.begin();
  try {
    for await (const f of files) {
      const path = dbPath(f.path);
      db.scratch.addOld(path, f.size, f.mode, f.mtime, f.digest, f.ok, f.attrs ? attrsKey(f.attrs) : null);
      n++;
      if (f.ok) {
        ok++;
        for (const c of f.chunks) db.scratch.addHeld(c.id, path, c.offset, c.len);
      }
    }
    db.commit();
  } catch (e) {
    db.rollback();
    throw e;
  }
  return { files: n, ok };
}

/** Files (or chunks of them) whose lstat is asked at once: a batch is checked while the next one is read from the manifest. */
const STAT_FILES = 512;
const STAT_CHUNKS = 65_536;

/** An entry of the old tree waiting for its lstat: a folder, or a file with what its record says. */
type Waiting = { dir: string } | { file: OldFile; size: number; mtime: string };

/**
 * The files of a stored manifest, each checked against DEST with lstat; a
 * file below a folder that is no longer a real folder of DEST (a symbolic
 * link, say) does not match, so nothing is read through it. The lstats go
 * in batches, made on another thread where the posix addon is built
 * (statBatch): on a cold disk each waits for the file's inode, and that
 * wait overlaps reading the manifest and loading the tree.
 */
export async function* oldFilesFromManifest(dest: string, records: AsyncIterable<ManifestRecord>): AsyncGenerator<OldFile> {
  const chain = new FolderChain();
  let cur: OldFile | null = null;
  let dig: ChunkListDigest | null = null;
  let at = 0;
  let batch: Waiting[] = [];
  let files = 0;
  let chunks = 0;
  const inFlight: Array<{ batch: Waiting[]; stats: Promise<StatBatch> }> = [];
  const take = (refs: ChunkRef[]): void => {
    for (const ref of refs) {
      const len = refLength(ref);
      dig!.addRef(ref);
      if (ref.length !== 1) cur!.chunks.push({ id: Buffer.from(ref[0], 'hex'), offset: at, len });
      at += len;
    }
    chunks += refs.length;
  };
  const done = (): void => {
    if (!cur) return;
    cur.digest = dig!.digest();
    cur = null;
  };
  const send = (): void => {
    if (batch.length === 0) return;
    const stats = statBatch(dest, batch);
    // Awaited in turn; one left behind when the load stops early must not surface as an unhandled rejection.
    stats.catch(() => undefined);
    inFlight.push({ batch, stats });
    batch = [];
    files = chunks = 0;
  };
  // Settles the oldest batch in flight, in manifest order: each folder examined before what it holds.
  async function* settle(): AsyncGenerator<OldFile> {
    const { batch: b, stats } = inFlight.shift()!;
    const st = await stats;
    for (const [i, w] of b.entries()) {
      if ('dir' in w) {
        chain.enter(w.dir, chain.parentReal(w.dir) && st.isDir(i));
      } else {
        w.file.ok = chain.parentReal(w.file.path) && st.matches(i, w.size, w.mtime);
        yield w.file;
      }
    }
  }
  for await (const r of records) {
    if (r.t === 'more') {
      if (cur) take(r.c);
      continue;
    }
    done();
    if (files >= STAT_FILES || chunks >= STAT_CHUNKS) {
      send();
      if (inFlight.length > 1) yield* settle();
    }
    if (r.t === 'dir') {
      batch.push({ dir: r.p });
    } else if (r.t === 'file') {
      const attrs: EntryAttributes = { ...(r.x ? { x: r.x } : {}), ...(r.o ? { o: r.o } : {}), ...(r.acl ? { acl: r.acl } : {}) };
      cur = { path: r.p, size: r.size, mode: r.mode, mtime: r.mtime, digest: Buffer.alloc(0), chunks: [], ok: false, attrs };
      batch.push({ file: cur, size: r.size, mtime: r.mtime });
      files++;
      dig = new ChunkListDigest();
      at = 0;
      take(r.c);
    }
  }
  done();
  send();
  while (inFlight.length > 0) yield* settle();
}

/** The lstat of each entry of a batch, by its index: whether it is a folder, or the file its record says. */
interface StatBatch {
  isDir(i: number): boolean;
  matches(i: number, size: number, mtime: string): boolean;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/**
 * lstat of every entry of a batch: on a thread of libuv's pool through the
 * posix addon (one call for the batch), or here with Node's lstat where
 * the addon is not built. A path that is not there (ENOENT, ENOTDIR) is
 * neither a folder nor a matching file; isDir and matches throw
 * BrickpostError IO or PERMISSION for an entry that cannot be examined.
 */
async function statBatch(dest: string, batch: Waiting[]): Promise<StatBatch> {
  const paths = batch.map((w) => join(dest, 'dir' in w ? w.dir : w.file.path));
  if (!posix.available) {
    // Each lstat when asked, as the entries settle: an entry below a folder that is not real is not examined.
    return {
      isDir: (i) => lstatOrNull(paths[i]!)?.isDirectory() === true,
      matches: (i, size, mtime) => {
        const st = lstatOrNull(paths[i]!);
        return st !== null && st.isFile() && st.size === BigInt(size) && closeTimes(st.mtimeNs, mtime);
      },
    };
  }
  const parts: Buffer[] = [];
  for (const p of paths) {
    const b = fsPath(p);
    parts.push(typeof b === 'string' ? Buffer.from(b) : b, NUL);
  }
  const f = await posix.lstatManyAsync(Buffer.concat(parts), paths.length);
  // An entry's failure counts only when it is asked about: below a folder that is not real, its lstat is not looked at.
  const type = (i: number): number => {
    const errno = f[i * SCAN_FIELDS + ScanField.errno]!;
    if (errno === 0) return f[i * SCAN_FIELDS + ScanField.mode]! & S_IFMT;
    if (errno === ENOENT || errno === ENOTDIR) return -1;
    const code = getSystemErrorName(-errno);
    const e = Object.assign(new Error(`${code}: cannot examine, lstat '${paths[i]!}'`), { code, errno: -errno, syscall: 'lstat', path: paths[i] });
    throw toEnvironmentError(e, `cannot examine ${quote(paths[i]!)}`);
  };
  return {
    isDir: (i) => type(i) === S_IFDIR,
    matches: (i, size, mtime) => {
      if (type(i) !== S_IFREG || f[i * SCAN_FIELDS + ScanField.size] !== size) return false;
      const ns = BigInt(f[i * SCAN_FIELDS + ScanField.mtimeSec]!) * 1_000_000_000n + BigInt(f[i * SCAN_FIELDS + ScanField.mtimeNsec]!);
      return closeTimes(ns, mtime);
    },
  };
}

const NUL = Buffer.alloc(1);
const ENOENT = osConstants.errno.ENOENT;
const ENOTDIR = osConstants.errno.ENOTDIR;

/** Whether a file's mtime (ns) is the manifest's `mtime`, within MTIME_SLACK_NS. */
function closeTimes(mtimeNs: bigint, mtime: string): boolean {
  const d = mtimeNs - BigInt(mtime);
  // utimes takes seconds as a double: a time set through it may be off by about a microsecond.
  return d >= -MTIME_SLACK_NS && d <= MTIME_SLACK_NS;
}

/** Whether DEST's entry at r.p is still the file the tree says: a regular file of that size and mtime. */
export function statMatches(dest: string, r: { p: string; size: number; mtime: string }): boolean {
  const st = lstatOrNull(join(dest, r.p));
  return st !== null && st.isFile() && st.size === BigInt(r.size) && closeTimes(st.mtimeNs, r.mtime);
}

/** How far a file's mtime may be from the manifest's and still count as the same (see statMatches). */
export const MTIME_SLACK_NS = 4000n;

/** lstat of a DEST path (an escaped string), or null when nothing is there. */
export function lstatOrNull(p: string): BigIntStats | null {
  try {
    return lstatSync(fsPath(p), { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw toEnvironmentError(e, `cannot examine ${quote(p)}`);
  }
}
