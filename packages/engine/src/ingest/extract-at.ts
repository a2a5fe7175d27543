import { chmodSync, copyFileSync, constants, lstatSync, mkdirSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { age, BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, ExtractAtOptions, ExtractAtSummary } from '../api/index.js';
import type { Context } from '../context.js';
import { fsPath } from '../io/fs-path.js';
import { setTimesPath } from '../io/times.js';
import { dbPath, DestDb } from './dest-db.js';
import { jobFailure } from './failures.js';
import { openSettled } from './settle.js';
import type { AppliedShipment, DestFolder } from './state.js';
import { opsOn, undoFile } from './undo-db.js';
import { writeKept } from './undo-store.js';

/**
 * `brickpost extract --at SEQ DEST PATH…`: files as they were after an
 * applied shipment, taken from DEST's own history, no drive needed. A file
 * no later shipment replaced is DEST's current file; otherwise it is what
 * the first later shipment retired, from its undo data (a whole file, or
 * rebuilt from the chunk undo store, each chunk checked).
 * @throws BrickpostError NOT_FOUND (no such shipment or file then), USAGE (the undo data needed was pruned; a folder), UNSAFE_ENTRY (something in the way in DIR), LOCKED, CHUNK_MISMATCH, FILE_MISSING, PERMISSION, IO
 */
export async function extractAt(ctx: Context, opts: ExtractAtOptions, onEvent: EventSink): Promise<ExtractAtSummary> {
  const started = performance.now();
  const identities = age.parseIdentityFile(ctx.identity().ageIdentity);
  const { dest, folder, state, unlock } = await openSettled(opts.dest, 'extract', identities, onEvent);
  const db = await DestDb.openLocked(folder.state, unlock);
  let failed = false;
  try {
    const target = state.applied.find((a) => String(a.seq) === opts.at) ?? state.applied.find((a) => a.shipment === opts.at);
    if (!target)
      throw new BrickpostError('NOT_FOUND', `no shipment ${quote(opts.at)} was applied to ${quote(opts.dest)}`, {
        hint: `'brickpost history ${opts.dest}' lists them`,
      });
    const later = state.applied.slice(state.applied.indexOf(target) + 1);
    const sources = opts.paths.map((p) => ({ path: clean(p), ...sourceOf(folder, db, later, clean(p), target) }));
    for (const s of sources) {
      const out = join(opts.to, s.path);
      if (lstatOrNull(out))
        throw new BrickpostError('UNSAFE_ENTRY', `${quote(out)} is in the way: extract replaces nothing`, {
          path: out,
          hint: 'give an empty folder with --to',
        });
    }
    const files: ExtractAtSummary['files'] = [];
    for (const s of sources) {
      const out = join(opts.to, s.path);
      mkdirSync(fsPath(dirname(out)), { recursive: true });
      if (s.kind === 'chunks') {
        const row = undoFile(db, s.shipment, s.n, s.rel)!;
        writeKept(folder, db, row, out);
        files.push({ path: s.path, bytes: row.size, from: 'undo' });
      } else {
        copyFileSync(fsPath(s.file), fsPath(out), constants.COPYFILE_EXCL);
        chmodSync(fsPath(out), s.st.mode & 0o7777);
        setTimesPath(out, String(lstatSync(fsPath(s.file), { bigint: true }).mtimeNs));
        files.push({ path: s.path, bytes: s.st.size, from: s.kind });
      }
    }
    return { dest, at: { shipmentId: target.shipment, seq: target.seq }, to: opts.to, files, seconds: (performance.now() - started) / 1000 };
  } catch (e) {
    failed = true;
    throw jobFailure(e, 'extract failed', { dest, home: ctx.home }, 'run the same extract again');
  } finally {
    const closing = db.closeAfter(failed);
    await unlock().catch(() => undefined);
    // eslint-disable-next-line no-unsafe-finally, @typescript-eslint/only-throw-error -- a journal that could not be synced fails the command
    if (closing !== null) throw closing;
  }
}

type Source = { kind: 'current' | 'undo'; file: string; st: Stats } | { kind: 'chunks'; shipment: string; n: number; rel: string };

function clean(p: string): string {
  const parts = p.split('/').filter((x) => x !== '' && x !== '.');
  if (parts.length === 0 || parts.includes('..')) throw new BrickpostError('USAGE', `${quote(p)} is not a path inside the destination`);
  return parts.join('/');
}

/** Where the file `path` had its content after `target`: the first later shipment that retired it (or a folder above it), else DEST now. */
function sourceOf(folder: DestFolder, db: DestDb, later: AppliedShipment[], path: string, target: AppliedShipment): Source {
  const parts = path.split('/');
  const above = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  const notThen = () =>
    new BrickpostError('NOT_FOUND', `${quote(path)} was not a file of ${quote(folder.dest)} after #${target.seq}`, {
      hint: `'brickpost history ${folder.dest}' lists the shipments`,
    });
  for (const a of later) {
    if (!lstatOrNull(folder.undo(a.shipment))) {
      throw new BrickpostError(
        'USAGE',
        `the undo data of #${a.seq} is no longer kept in ${quote(folder.dest)}, so ${quote(path)} cannot be taken as it was after #${target.seq}`,
        { hint: `'brickpost history ${folder.dest}' shows which shipments are kept` },
      );
    }
    const ops = opsOn(db, a.shipment, above.map(dbPath));
    const retire = ops.find((o) => o.kind === 'retire');
    if (retire) {
      const rel = path.slice(retire.path === dbPath(path) ? path.length : above.find((x) => dbPath(x) === retire.path)!.length + 1);
      const row = undoFile(db, a.shipment, retire.n, dbPath(rel));
      if (row) return { kind: 'chunks', shipment: a.shipment, n: retire.n, rel: dbPath(rel) };
      const file = rel === '' ? join(folder.undo(a.shipment), String(retire.n)) : join(folder.undo(a.shipment), String(retire.n), rel);
      const st = lstatOrNull(file);
      if (st?.isFile()) return { kind: 'undo', file, st };
      if (st) throw new BrickpostError('USAGE', `${quote(path)} was not a regular file after #${target.seq}: extract --at takes files`);
      throw notThen();
    }
    if (ops.some((o) => o.path === dbPath(path))) throw notThen();
  }
  const file = join(folder.dest, path);
  for (const x of above.slice(0, -1)) if (!lstatOrNull(join(folder.dest, x))?.isDirectory()) throw notThen();
  const st = lstatOrNull(file);
  if (!st?.isFile()) throw notThen();
  return { kind: 'current', file, st };
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(fsPath(p));
  } catch {
    return null;
  }
}
