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
import { realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import * as posix from '@brickpost/posix';
import {
  BrickpostError,
  displayName,
  fromBytes,
  quote,
  toBytes,
  type ChunkRef,
  type DirRecord,
  type EntryAttributes,
  type FileRecord,
  type HardRecord,
  type LinkRecord,
  type SpecialRecord,
} from '@brickpost/manifest';
import type { EventSink, ExtractOptions, ExtractSummary } from '../api/index.js';
import type { Context } from '../context.js';
import { toEnvironmentError } from '../io/errors.js';
import { makeFolders } from '../io/folders.js';
import { fsPath } from '../io/fs-path.js';
import { setTimesFd, setTimesPath } from '../io/times.js';
import { Progress } from '../io/progress.js';
import { requireSpace } from '../io/space.js';
import { AttrApplier } from '../ingest/attrs.js';
import { setMeta } from '../ingest/meta.js';
import { leavesDest, NOT_CREATED } from '../ingest/apply-plan.js';
import { modeUnder, policyOf, type ApplyPolicy } from '../ingest/policy.js';
import { readManifest } from '../verify/manifest-stream.js';
import { chunkBuffer, type ChunkBytes } from '../verify/native-readers.js';
import { walkShipment, type ShipmentVisitor } from '../verify/walk-shipment.js';
import { openReadable, type Readable } from './open.js';
import { baseMissing, Selection } from './selection.js';

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Takes entries off a shipment into a folder, without a destination state:
 * the named files and folders (everything when none is named), with their
 * metadata as the apply policy allows (the options are ingest's). Only the
 * chunks of the files taken are read, each checked against its keyed id,
 * not whole packs; a drive set with a missing data drive has it rebuilt from
 * the parity first. Nothing is written before a first pass over the
 * manifest has found every named path, that nothing is in the way in DIR
 * (extract never replaces an entry, and never writes through a link), that
 * the taken files need no data of an earlier shipment, and that DIR's file
 * system has room. Each file is written under a temporary name and renamed
 * into place when whole; links, hard links and special files are made after
 * the files, folder modes and times last (deepest first). A file named only
 * by a hard link taken without it is written at the first such name.
 * @throws BrickpostError NOT_FOUND (a named path the shipment lacks), USAGE (something in the way), BASIS_MISSING (an incremental shipment's file), NO_SPACE, and what opening and reading the drive throw
 */
export async function extract(ctx: Context, opts: ExtractOptions, onEvent: EventSink, signal?: AbortSignal): Promise<ExtractSummary> {
  const started = performance.now();
  const policy = policyOf(opts);
  const sel = new Selection(opts.paths);
  await makeFolders(resolve(opts.to)).catch((e: unknown) => {
    throw toEnvironmentError(e, 'cannot create the folder to extract into');
  });
  const out = await realpath(resolve(opts.to));
  const r = await openReadable(ctx, opts.drive, opts.drives ?? [], opts.shipment, onEvent, signal, opts.maxExpansion);
  try {
    const survey = await surveySelection(r, sel, out);
    await requireSpace(out, survey.room, { where: 'target folder', what: 'the entries to extract' });
    const x = new Extractor(out, sel, survey.sources, policy, (message, path) => onEvent({ type: 'warning', code: 'NOT_APPLIED', message, path }));
    const progress = new Progress(onEvent, 'extract');
    progress.bytesTotal = survey.bytes;
    progress.filesTotal = survey.files;
    try {
      await walkShipment(r.shipment, r.identityText, x, progress, signal, r.allPacks);
      x.finish();
    } catch (e) {
      // What this run made goes again, so that the same extract can run again once the cause is fixed.
      x.undo();
      throw e;
    } finally {
      x.close();
    }
    progress.emit();
    return {
      shipmentId: r.shipment.id,
      to: out,
      files: x.files,
      dirs: x.dirs,
      links: x.links,
      hardLinks: x.hardLinks,
      specials: x.specials,
      bytesWritten: x.bytes,
      notApplied: x.notApplied(),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await r.close();
  }
}

/**
 * The first pass: what is taken, and whether it can be. Returns the bytes
 * of the files taken, the room they need (less their holes), the files,
 * and for each file taken only through a hard link the path to write it at.
 * @throws BrickpostError NOT_FOUND, USAGE, BASIS_MISSING
 */
async function surveySelection(
  r: Readable,
  sel: Selection,
  out: string,
): Promise<{ bytes: number; room: number; files: number; sources: Map<string, string> }> {
  const sources = new Map<string, string>();
  const inTheWay: string[] = [];
  const needsBase: string[] = [];
  let bytes = 0;
  let room = 0;
  let files = 0;
  let file: FileRecord | null = null;
  let relative = false;
  const check = (p: string, folder: boolean): void => {
    const st = lstatSync(fsPath(join(out, p)), { throwIfNoEntry: false });
    if (st && !(folder && st.isDirectory())) inTheWay.push(p);
  };
  for await (const rec of readManifest(r.shipment, r.identities)) {
    if (rec.t === 'shipment') relative = rec.bases.length > 0 || rec.against !== null;
    if (rec.t === 'more') {
      if (file && relative && rec.c.some((c) => c.length === 2 || c.length === 6)) needsBase.push(file.p);
      if (file) room -= holes(rec.c);
      continue;
    }
    file = null;
    if (rec.t === 'shipment' || rec.t === 'pack' || rec.t === 'end') continue;
    const taken = sel.selects(rec.p);
    if (!taken) {
      if (rec.t === 'dir' && sel.leadsTo(rec.p)) check(rec.p, true);
      continue;
    }
    // A folder already there is added to (its mode and time stay); any other entry is in the way.
    check(rec.p, rec.t === 'dir');
    if (rec.t === 'file') {
      files++;
      bytes += rec.size;
      // Holes of a sparse file are not written: they take no room.
      room += rec.size - holes(rec.c);
      file = rec;
      if (relative && rec.c.some((c) => c.length === 2 || c.length === 6)) needsBase.push(rec.p);
    } else if (rec.t === 'hard' && !sel.selects(rec.to) && !sources.has(rec.to)) {
      sources.set(rec.to, rec.p);
    }
  }
  sel.checkAllFound();
  if (needsBase.length > 0) throw baseMissing(needsBase);
  if (inTheWay.length > 0) {
    throw new BrickpostError(
      'USAGE',
      `extract does not replace what is already in ${quote(out)}: ${inTheWay
        .slice(0, 5)
        .map((p) => quote(displayName(p)))
        .join(', ')}${inTheWay.length > 5 ? `, and ${inTheWay.length - 5} more` : ''}; nothing was written`,
      {
        hint: 'extract into an empty folder, or move those entries away first',
      },
    );
  }
  return { bytes, room, files, sources };
}

/** The bytes of the holes among a record's chunk refs. */
function holes(refs: readonly ChunkRef[]): number {
  return refs.reduce((n, r) => n + (r.length === 1 ? r[0] : 0), 0);
}

/** Writes the entries of a walk over the shipment (ShipmentVisitor). */
class Extractor implements ShipmentVisitor {
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
