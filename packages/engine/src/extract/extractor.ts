import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import * as posix from '@brickpost/posix';
import {
  BrickpostError,
  displayName,
  fromBytes,
  quote,
  toBytes,
  type DirRecord,
  type EntryAttributes,
  type FileRecord,
  type HardRecord,
  type LinkRecord,
  type SpecialRecord,
} from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { fsPath } from '../io/fs-path.js';
import { setTimesFd, setTimesPath } from '../io/times.js';
import { AttrApplier } from '../ingest/attrs.js';
import { setMeta } from '../ingest/meta.js';
import { NOT_CREATED } from '../ingest/apply-plan.js';
import { leavesDest } from '../ingest/dest-view.js';
import { modeUnder, type ApplyPolicy } from '../ingest/policy.js';
import { chunkBuffer, type ChunkBytes } from '../verify/native-readers.js';
import type { ShipmentVisitor } from '../verify/walk-shipment.js';
import type { Selection } from './selection.js';

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Writes the entries of a walk over the shipment (ShipmentVisitor); extract() drives it. */
export class Extractor implements ShipmentVisitor {
  files = 0;
  dirs = 0;
  links = 0;
  hardLinks = 0;
  specials = 0;
  bytes = 0;
  private readonly applier: AttrApplier;
  private readonly later = new Database('');
  private readonly planned: Record<string, number> = {};
  private fd = -1;
  private at = 0;
  private end = 0;
  private tmp = '';
  private target = '';
  /** Files taken only through a hard link: written aside (their folder may come later), moved to that name with the links. */
  private readonly aside = new Map<string, string>();

  constructor(
    private readonly out: string,
    private readonly sel: Selection,
    private readonly sources: Map<string, string>,
    private readonly policy: ApplyPolicy,
    warn: (message: string, path: string) => void,
  ) {
    this.applier = new AttrApplier(policy, warn);
    this.later.exec(
      'CREATE TABLE later (n INTEGER PRIMARY KEY, rec TEXT NOT NULL); CREATE TABLE dirs (path BLOB PRIMARY KEY, rec TEXT NOT NULL); CREATE TABLE made (n INTEGER PRIMARY KEY, path BLOB NOT NULL)',
    );
  }

  dir(r: DirRecord): void {
    if (!this.sel.selects(r.p) && !this.sel.leadsTo(r.p)) return;
    const at = join(this.out, r.p);
    try {
      mkdirSync(fsPath(at), { mode: 0o700 });
    } catch (e) {
      // A folder already there (the survey checked it is one) is added to; its mode and time stay.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !lstatSync(fsPath(at)).isDirectory())
        throw toEnvironmentError(e, `cannot create ${quote(displayName(at))}`);
      return;
    }
    this.dirs++;
    this.later.prepare('INSERT INTO dirs (path, rec) VALUES (?, ?)').run(toBytes(r.p), JSON.stringify(r));
  }

  wants(r: FileRecord): boolean {
    return this.sel.selects(r.p) || this.sources.has(r.p);
  }

  fileStart(r: FileRecord): void {
    const tag = `.brickpost-extract-${randomBytes(6).toString('hex')}`;
    if (this.sel.selects(r.p)) {
      this.target = join(this.out, r.p);
      this.tmp = join(dirname(this.target), tag);
    } else {
      this.target = join(this.out, `${tag}-held`);
      this.tmp = join(this.out, tag);
      this.aside.set(this.sources.get(r.p)!, this.target);
    }
    try {
      this.fd = openSync(this.tmp, CREATE, 0o600);
    } catch (e) {
      throw toEnvironmentError(e, `cannot create a file in ${quote(displayName(dirname(this.target)))}`);
    }
    this.at = 0;
    this.end = 0;
  }

  chunk(bytes: ChunkBytes): void {
    const data = chunkBuffer(bytes);
    let off = 0;
    try {
      while (off < data.length) off += writeSync(this.fd, data, off, data.length - off, this.at + off);
    } catch (e) {
      throw toEnvironmentError(e, `cannot write ${quote(displayName(this.target))}`, { path: this.tmp });
    }
    this.at += data.length;
    this.end = this.at;
    this.bytes += data.length;
  }

  hole(length: number): void {
    this.at += length;
  }

  held(): never {
    throw new BrickpostError('BASIS_MISSING', `${quote(displayName(this.target))} reuses data this incremental shipment does not carry`);
  }

  delta(): never {
    return this.held();
  }

  fileEnd(r: FileRecord): void {
    const fd = this.fd;
    this.fd = -1;
    try {
      if (this.end < r.size) ftruncateSync(fd, r.size);
      this.applier.toFd(fd, r.p, r, false);
      fchmodSync(fd, modeUnder(this.policy, r.mode));
      setTimesFd(fd, r.mtime);
    } finally {
      closeSync(fd);
    }
    // Never over an entry: the survey found the name free, and a rename would replace what came since.
    if (lstatSync(fsPath(this.target), { throwIfNoEntry: false })) {
      rmSync(this.tmp, { force: true });
      throw new BrickpostError('USAGE', `${quote(displayName(this.target))} appeared while extracting; it was left as it is`, { path: this.target });
    }
    renameSync(this.tmp, fsPath(this.target));
    if (this.sel.selects(r.p)) this.madeAt(r.p);
    this.files++;
  }

  entry(r: LinkRecord | HardRecord | SpecialRecord): void {
    if (this.sel.selects(r.p)) this.later.prepare('INSERT INTO later (rec) VALUES (?)').run(JSON.stringify(r));
  }

  /** Links, hard links and special files after every file; then folder modes and times, deepest first. */
  finish(): void {
    // Read a page at a time: make() records what it made on the same connection, which an open iterator would hold busy.
    const page = this.later.prepare<[number], { n: number; rec: string }>('SELECT n, rec FROM later WHERE n > ? ORDER BY n LIMIT 1024');
    for (let after = 0, rows: Array<{ n: number; rec: string }>; (rows = page.all(after)).length > 0; after = rows[rows.length - 1]!.n) {
      for (const row of rows) this.make(JSON.parse(row.rec) as LinkRecord | HardRecord | SpecialRecord);
    }
    for (const row of this.later.prepare<[], { rec: string }>('SELECT rec FROM dirs ORDER BY path DESC').iterate()) {
      const d = JSON.parse(row.rec) as DirRecord;
      setMeta(join(this.out, d.p), modeUnder(this.policy, d.mode), d.mtime, 'dir', { attrs: attrs(d), applier: this.applier });
    }
  }

  private madeAt(p: string): void {
    this.later.prepare('INSERT INTO made (path) VALUES (?)').run(toBytes(p));
  }

  /**
   * Removes what this run made (files, links, then its folders, deepest
   * first), after a failure; what cannot be removed stays (the next extract
   * then says it is in the way). Throws nothing.
   */
  undo(): void {
    const paths = function* (this: Extractor, sql: string): Generator<string> {
      for (const b of this.later.prepare<[], Buffer>(sql).pluck().iterate()) yield join(this.out, fromBytes(b));
    }.bind(this);
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    for (const f of [this.tmp, ...this.aside.values()]) if (f) rmSync(f, { force: true });
    for (const p of paths('SELECT path FROM made ORDER BY n DESC')) rmSync(fsPath(p), { force: true });
    for (const p of paths('SELECT path FROM dirs ORDER BY path DESC')) {
      try {
        rmdirSync(fsPath(p));
      } catch {
        // Not empty (something else was put there) or not removable: left as it is.
      }
    }
  }

  private make(r: LinkRecord | HardRecord | SpecialRecord): void {
    const at = join(this.out, r.p);
    try {
      if (r.t === 'link') {
        if (leavesDest(r.p, r.target) && !this.policy.outsideLinks) return this.skip(NOT_CREATED.outsideLink);
        symlinkSync(toBytes(r.target), fsPath(at));
        this.madeAt(r.p);
        if (r.o) this.applier.toLink(at, r.p, { o: r.o });
        setTimesPath(at, r.mtime);
        this.links++;
      } else if (r.t === 'hard') {
        const to = this.sel.selects(r.to) ? r.to : this.sources.get(r.to)!;
        // The first name taken without its file becomes the file: it was written aside.
        if (to === r.p) {
          renameSync(this.aside.get(r.p)!, fsPath(at));
          this.madeAt(r.p);
          this.aside.delete(r.p);
          return;
        }
        linkSync(fsPath(join(this.out, to)), fsPath(at));
        this.madeAt(r.p);
        this.hardLinks++;
      } else {
        if (r.kind === 'socket') return this.skip(NOT_CREATED.socket);
        if (!this.policy.specials) return this.skip(NOT_CREATED.special);
        if (r.kind === 'fifo') posix.mkfifo(fsPath(at), 0o600);
        else posix.mknod(fsPath(at), (r.kind === 'char' ? 0o020000 : 0o060000) | 0o600, r.dev![0], r.dev![1]);
        this.madeAt(r.p);
        setMeta(at, modeUnder(this.policy, r.mode), r.mtime, 'special', { attrs: attrs(r), applier: this.applier });
        this.specials++;
      }
    } catch (e) {
      if (e instanceof BrickpostError) throw e;
      throw toEnvironmentError(e, `cannot create ${quote(displayName(at))}`);
    }
  }

  private skip(reason: string): void {
    this.planned[reason] = (this.planned[reason] ?? 0) + 1;
  }

  notApplied(): Record<string, number> {
    const all = { ...this.planned };
    for (const [k, n] of Object.entries(this.applier.notApplied)) all[k] = (all[k] ?? 0) + n;
    return all;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    if (this.tmp) rmSync(this.tmp, { force: true });
    for (const f of this.aside.values()) rmSync(f, { force: true });
    this.later.close();
  }
}

function attrs(r: DirRecord | SpecialRecord): EntryAttributes {
  return { ...(r.x ? { x: r.x } : {}), ...(r.o ? { o: r.o } : {}), ...(r.acl ? { acl: r.acl } : {}) };
}
