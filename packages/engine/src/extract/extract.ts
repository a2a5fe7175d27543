import { lstatSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { BrickpostError, displayName, quote, type ChunkRef, type FileRecord } from '@brickpost/manifest';
import type { EventSink, ExtractOptions, ExtractSummary } from '../api/index.js';
import type { Context } from '../context.js';
import { toEnvironmentError } from '../io/errors.js';
import { makeFolders } from '../io/folders.js';
import { fsPath } from '../io/fs-path.js';
import { Progress } from '../io/progress.js';
import { requireSpace } from '../io/space.js';
import { policyOf } from '../ingest/policy.js';
import { readManifest } from '../verify/manifest-stream.js';
import { walkShipment } from '../verify/walk-shipment.js';
import { Extractor } from './extractor.js';
import { openReadable, type Readable } from './open.js';
import { baseMissing, PathSample, Selection } from './selection.js';

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
  const inTheWay = new PathSample();
  const needsBase = new PathSample();
  let bytes = 0;
  let room = 0;
  let files = 0;
  let file: FileRecord | null = null;
  let relative = false;
  const check = (p: string, folder: boolean): void => {
    const st = lstatSync(fsPath(join(out, p)), { throwIfNoEntry: false });
    if (st && !(folder && st.isDirectory())) inTheWay.add(p);
  };
  for await (const rec of readManifest(r.shipment, r.identities)) {
    if (rec.t === 'shipment') relative = rec.bases.length > 0 || rec.against !== null;
    if (rec.t === 'more') {
      if (file && relative && rec.c.some((c) => c.length === 2 || c.length === 6)) needsBase.add(file.p);
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
      if (relative && rec.c.some((c) => c.length === 2 || c.length === 6)) needsBase.add(rec.p);
    } else if (rec.t === 'hard' && !sel.selects(rec.to) && !sources.has(rec.to)) {
      sources.set(rec.to, rec.p);
    }
  }
  sel.checkAllFound();
  if (needsBase.count > 0) throw baseMissing(needsBase);
  if (inTheWay.count > 0) {
    throw new BrickpostError(
      'USAGE',
      `extract does not replace what is already in ${quote(out)}: ${inTheWay.first
        .map((p) => quote(displayName(p)))
        .join(', ')}${inTheWay.count > 5 ? `, and ${inTheWay.count - 5} more` : ''}; nothing was written`,
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
