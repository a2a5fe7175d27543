import type Database from 'better-sqlite3';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrickpostError, displayName, quote, type FileRecord, type HardRecord, type ShipmentRecord } from '@brickpost/manifest';
import type { EventSink, ExtractOptions, ExtractSummary } from '../api/index.js';
import { chunkKey } from '../chunk/index.js';
import type { Context } from '../context.js';
import { openReadable, type Readable } from '../extract/open.js';
import { baseMissing, PathSample, Selection } from '../extract/selection.js';
import { Progress } from '../io/progress.js';
import { readManifest } from '../verify/manifest-stream.js';
import { walkShipment } from '../verify/walk-shipment.js';
import { s3Client } from './client.js';
import { ETAG } from './meta.js';
import { eachLimited, Objects } from './objects.js';
import { Stager } from './stager.js';
import { openTree, PARALLEL } from './state.js';
import { parseS3Url } from './url.js';
import { removeTree } from '../io/remove-tree.js';

/** S3's longest key, in bytes. */
const KEY_MAX = 1024;

/**
 * Takes entries off a shipment into `s3://BUCKET/PREFIX`, as extract into a
 * folder does, without a destination state: the named files and folders
 * (everything when none is named) become objects, with the Content-Type
 * and user metadata they carry (README "Object storage"). Nothing is
 * written before a first pass over the manifest has found every named
 * path, that the taken files need no data of an earlier shipment, that the
 * bucket can hold their names, and that no object is at a key extract
 * writes (it never replaces one). Only the chunks of the files taken are
 * read, each checked against its keyed id before it is sent; a file streams
 * into a multipart upload (the ingest's Stager), so an object appears only
 * whole. Hard links become server-side copies; links and special files are
 * counted as not applied. A failure deletes the objects this run wrote.
 * @throws BrickpostError NOT_FOUND (a named path the shipment lacks; no bucket), USAGE (names or objects in the way), BASIS_MISSING, PERMISSION, IO, and what reading the drive throws
 */
export async function s3Extract(ctx: Context, opts: ExtractOptions, onEvent: EventSink, signal?: AbortSignal): Promise<ExtractSummary> {
  const started = performance.now();
  const place = parseS3Url(opts.to);
  const o = new Objects(s3Client(opts.s3), place);
  const sel = new Selection(opts.paths);
  const scratch = await mkdtemp(join(tmpdir(), 'brickpost-s3x-'));
  const r = await openReadable(ctx, opts.drive, opts.drives ?? [], opts.shipment, onEvent, signal, opts.maxExpansion);
  let tree: Database.Database | null = null;
  try {
    // The tree of what is taken (files, folder markers); `old` is empty: extract reuses nothing of the bucket.
    openTree(join(scratch, 'old.sqlite')).close();
    tree = openTree(join(scratch, 'tree.sqlite'));
    tree.prepare('ATTACH DATABASE ? AS old').run(join(scratch, 'old.sqlite'));
    const found = await surveyTaken(r, sel, tree, o);
    const progress = new Progress(onEvent, 'extract');
    progress.bytesTotal = found.bytes;
    progress.filesTotal = found.files;
    // Hard links wait in the scratch database until their file is written.
    tree.exec('CREATE TEMP TABLE hard (path TEXT PRIMARY KEY, target TEXT NOT NULL)');
    const addHard = tree.prepare('INSERT OR REPLACE INTO temp.hard (path, target) VALUES (?, ?)');
    let hardLinks = 0;
    const stager = new Taker(
      o,
      (f) => !(sel.selects(f.p) || found.sources.has(f.p)),
      tree,
      chunkKey(Buffer.from(found.header.secret, 'base64')),
      (x) => {
        if (sel.selects(x.p)) addHard.run(x.p, x.to);
      },
      () => progress.add(0, 1),
      (f) => (sel.selects(f.p) ? f : { ...f, p: found.sources.get(f.p)! }),
    );
    try {
      try {
        await walkShipment(r.shipment, r.identityText, stager, progress, signal, r.allPacks);
        await stager.finish();
      } catch (e) {
        await stager.abort();
        throw e;
      }
      // Hard links taken: copies of the object written for their file.
      const sizeOf = tree.prepare('SELECT size FROM files WHERE path = ?').pluck();
      const hard = tree.prepare('SELECT path, target FROM temp.hard').iterate() as IterableIterator<{ path: string; target: string }>;
      await eachLimited(hard, PARALLEL, async (x) => {
        const src = sel.selects(x.target) ? x.target : found.sources.get(x.target)!;
        if (src === x.path) return;
        await o.copy(src, x.path, (sizeOf.get(x.path) as number | undefined) ?? 0);
        hardLinks++;
      });
    } catch (e) {
      // What this run wrote goes again (no object was at those keys), so that the same extract can run again.
      await o.deleteMany(tree.prepare('SELECT path FROM files').pluck().iterate() as IterableIterator<string>).catch(() => undefined);
      throw e;
    }
    progress.emit();
    return {
      shipmentId: r.shipment.id,
      to: place.url,
      files: stager.filesWritten,
      dirs: found.dirs,
      links: found.links,
      hardLinks,
      specials: found.specials,
      bytesWritten: progress.bytesDone,
      notApplied: found.notApplied,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    tree?.close();
    await r.close();
    await removeTree(scratch);
    o.client.destroy();
  }
}

/** The Stager writing straight to the keys, a file taken only through a hard link at that link's key. */
class Taker extends Stager {
  constructor(
    o: Objects,
    skip: (r: FileRecord) => boolean,
    tree: Database.Database,
    key: Buffer,
    later: (r: HardRecord) => void,
    onUploaded: () => void,
    private readonly at: (r: FileRecord) => FileRecord,
  ) {
    super(o, '', skip, tree, key, later, onUploaded);
  }

  override async fileStart(r: FileRecord): Promise<void> {
    await super.fileStart(this.at(r));
  }
}

interface Taken {
  header: ShipmentRecord;
  files: number;
  dirs: number;
  bytes: number;
  links: number;
  specials: number;
  notApplied: Record<string, number>;
  /** For each file taken only through hard links, the first of them (written as the file). */
  sources: Map<string, string>;
}

/**
 * The first pass: records in `tree` the keys extract writes (files, hard
 * links, folder markers for empty folders and folders that came from a
 * marker), and refuses, before anything is written, a named path the
 * shipment lacks, a taken file that reuses data of an earlier shipment, a
 * name the bucket cannot hold, and an object already at a key it writes.
 * @throws BrickpostError NOT_FOUND, BASIS_MISSING, USAGE
 */
async function surveyTaken(r: Readable, sel: Selection, tree: Database.Database, o: Objects): Promise<Taken> {
  const add = tree.prepare('INSERT OR IGNORE INTO files (path, size, marker) VALUES (?, ?, ?)');
  // Every file's size, for hard links to files not taken.
  tree.exec('CREATE TEMP TABLE sizes (path TEXT PRIMARY KEY, size INTEGER NOT NULL)');
  const setSize = tree.prepare('INSERT OR REPLACE INTO temp.sizes (path, size) VALUES (?, ?)');
  const sizeOf = tree.prepare('SELECT size FROM temp.sizes WHERE path = ?').pluck();
  const t: Omit<Taken, 'header'> & { header: ShipmentRecord | null } = {
    header: null,
    files: 0,
    dirs: 0,
    bytes: 0,
    links: 0,
    specials: 0,
    notApplied: {},
    sources: new Map(),
  };
  const cannot: string[] = [];
  const needsBase = new PathSample();
  const check = (p: string): void => {
    if (!p.isWellFormed() || /[\udc80-\udcff]/.test(p)) cannot.push(`${quote(displayName(p))} (a name that is not UTF-8)`);
    else if (Buffer.byteLength(o.key(p)) > KEY_MAX) cannot.push(`${quote(displayName(p))} (a key longer than ${KEY_MAX} bytes)`);
  };
  let relative = false;
  let file: FileRecord | null = null;
  let lastDir: { p: string; marked: boolean } | null = null;
  const endDir = (next: string | null): void => {
    if (lastDir && !lastDir.marked && (next === null || !next.startsWith(lastDir.p + '/'))) add.run(lastDir.p + '/', 0, 1);
    lastDir = null;
  };
  tree.exec('BEGIN');
  for await (const rec of readManifest(r.shipment, r.identities)) {
    if (rec.t === 'more') {
      if (file && relative && rec.c.some((c) => c.length === 2 || c.length === 6)) needsBase.add(file.p);
      continue;
    }
    file = null;
    endDir(rec.t === 'shipment' || rec.t === 'pack' || rec.t === 'end' ? null : rec.p);
    if (rec.t === 'shipment') {
      t.header = rec;
      relative = rec.bases.length > 0 || rec.against !== null;
    }
    if (rec.t === 'shipment' || rec.t === 'pack' || rec.t === 'end') continue;
    if (rec.t === 'file') setSize.run(rec.p, rec.size);
    if (!sel.selects(rec.p)) continue;
    check(rec.p);
    if (rec.t === 'file') {
      t.files++;
      t.bytes += rec.size;
      add.run(rec.p, rec.size, 0);
      file = rec;
      if (relative && rec.c.some((c) => c.length === 2 || c.length === 6)) needsBase.add(rec.p);
    } else if (rec.t === 'dir') {
      t.dirs++;
      const marked = rec.x?.some(([n]) => n === ETAG) === true;
      if (marked) add.run(rec.p + '/', 0, 1);
      lastDir = { p: rec.p, marked };
    } else if (rec.t === 'hard') {
      add.run(rec.p, sizeOf.get(rec.to) ?? 0, 0);
      if (!sel.selects(rec.to) && !t.sources.has(rec.to)) t.sources.set(rec.to, rec.p);
    } else if (rec.t === 'link') {
      t.links++;
      t.notApplied['symbolic link (object storage has none)'] = (t.notApplied['symbolic link (object storage has none)'] ?? 0) + 1;
    } else {
      t.specials++;
      const why = `${rec.kind} (object storage has none)`;
      t.notApplied[why] = (t.notApplied[why] ?? 0) + 1;
    }
  }
  endDir(null);
  tree.exec('COMMIT');
  sel.checkAllFound();
  if (needsBase.count > 0) throw baseMissing(needsBase);
  if (cannot.length > 0)
    throw new BrickpostError(
      'USAGE',
      `object storage cannot hold ${cannot.length} of the names to extract: ${cannot.slice(0, 5).join(', ')}${cannot.length > 5 ? ', …' : ''}; nothing was written`,
      { hint: 'extract into a folder instead (--to DIR)' },
    );
  // extract never replaces: an object at a key it writes stops it.
  const inTheWay: string[] = [];
  const writes = tree.prepare('SELECT 1 FROM files WHERE path = ?').pluck();
  for await (const { rel } of o.list('')) if (writes.get(rel) && inTheWay.push(rel) >= 6) break;
  if (inTheWay.length > 0)
    throw new BrickpostError(
      'USAGE',
      `extract does not replace what is already in ${o.place.url}: ${inTheWay
        .slice(0, 5)
        .map((k) => quote(k))
        .join(', ')}${inTheWay.length > 5 ? ', …' : ''}; nothing was written`,
      { hint: 'extract into an empty prefix, or move those objects away first (aws s3 mv)' },
    );
  if (!t.header) throw new BrickpostError('MALFORMED', `the manifest of shipment ${r.shipment.id} has no shipment record`);
  return { ...t, header: t.header };
}
