/**
 * scanRecovery: one pass over a bag's recovery data, window by window,
 * checking every protected block against its CRC-32 and every recovery
 * block, and telling which damaged blocks can be rebuilt. Memory: one
 * window's header, one read buffer and per-file tallies.
 */
import { BrickpostError } from '@brickpost/manifest';
import { payloadManifest, probe, type Entry } from './bag-io.js';
import { checkWindow, type CheckContext, type WindowCheck } from './check.js';
import { intactRows } from './decode.js';
import { locate } from './header.js';
import { windowOfPath } from './params.js';
import { scanStatus, type RecoveryFileReport, type RecoveryReadOptions, type RecoveryReport, type RecoveryWindowReport } from './report.js';

/** A window with damaged member blocks, as repair needs it. */
export interface DamagedWindow {
  window: number;
  path: string;
  /** Damaged member positions. */
  damaged: number[];
  /** Damaged recovery blocks, by number in the file. */
  badRows: number[];
}

/** What the scan pass found, kept for the repair pass. */
export interface ScanState {
  report: RecoveryReport;
  manifest: ReadonlyMap<string, string>;
  entries: Map<string, Entry>;
  damagedWindows: DamagedWindow[];
}

/**
 * Checks a bag's recovery data and the files it protects, reading every
 * protected block and every recovery block once. The recovery files are
 * the payload manifest's entries named data/recovery/DDD/WWWWWW.rec.
 * Damage is reported, never thrown.
 * @throws BrickpostError FILE_MISSING, MALFORMED, UNSAFE_PATH, LIMIT_EXCEEDED
 * (the payload manifest), CANCELLED, PERMISSION, IO
 */
export async function scanRecovery(bagDir: string, opts: RecoveryReadOptions = {}): Promise<RecoveryReport> {
  return (await scanPass(bagDir, opts)).report;
}

/**
 * scanRecovery's pass, returning also what repair needs.
 * @throws BrickpostError as scanRecovery
 */
export async function scanPass(bagDir: string, opts: RecoveryReadOptions): Promise<ScanState> {
  const manifest = opts.payload ?? (await payloadManifest(bagDir));
  const windows: Array<[number, string]> = [];
  for (const path of manifest.keys()) {
    const w = windowOfPath(path);
    if (w !== undefined) windows.push([w, path]);
  }
  windows.sort((a, b) => a[0] - b[0]);
  const entries = new Map<string, Entry>();
  const files = new Map<string, RecoveryFileReport>();
  const problems: RecoveryWindowReport[] = [];
  const damagedWindows: DamagedWindow[] = [];
  let bytesRead = 0;
  const ctx: CheckContext = {
    bagDir,
    manifest,
    signal: opts.signal,
    async entry(rel) {
      let e = entries.get(rel);
      if (!e) entries.set(rel, (e = await probe(bagDir, rel)));
      return e;
    },
    read(bytes) {
      bytesRead += bytes;
      opts.progress?.add(bytes);
    },
  };
  for (const [w, path] of windows) {
    if (opts.signal?.aborted) throw new BrickpostError('CANCELLED', 'recovery check cancelled');
    const c = await checkWindow(ctx, w, path);
    if ('state' in c) {
      problems.push(c);
      continue;
    }
    tally(c, files);
    if (c.badRows.length > 0 || c.firstCopyDamaged) problems.push(degraded(c, w, path));
    if (c.damaged.length > 0) damagedWindows.push({ window: w, path, damaged: c.damaged, badRows: c.badRows });
  }
  const report: RecoveryReport = {
    windows: windows.length,
    blocks: 0,
    damagedBlocks: 0,
    unrepairableBlocks: 0,
    repairedBlocks: 0,
    bytesRead,
    files: [...files.values()],
    windowProblems: problems,
  };
  for (const f of report.files) {
    const entry = entries.get(f.path)!;
    f.actualSize = entry.kind === 'file' ? entry.size : null;
    Object.assign(f, scanStatus(f, entry, opts.bound?.(f.path)));
    report.blocks += f.blocks;
    report.damagedBlocks += f.damaged.length;
    report.unrepairableBlocks += f.unrepairable.length;
  }
  return { report, manifest, entries, damagedWindows };
}

/** Adds a window's blocks, sizes and damage to the per-file tallies. */
function tally(c: WindowCheck, files: Map<string, RecoveryFileReport>): void {
  const h = c.header;
  const B = h.params.blockSize;
  const usable = intactRows(h, c.badRows).map((r) => r.length);
  const erasures = new Uint32Array(h.params.interleave);
  for (const p of c.damaged) erasures[h.groups[p]!]!++;
  const file = (path: string): RecoveryFileReport => {
    let f = files.get(path);
    if (!f) files.set(path, (f = { path, status: 'intact', blocks: 0, size: null, actualSize: null, damaged: [], unrepairable: [] }));
    return f;
  };
  let end = 0;
  for (const g of h.segments) {
    end += g.count;
    const f = file(g.path);
    f.blocks += g.count;
    if (h.last[end - 1]) f.size = (g.first + g.count - 1) * B + h.lengths[end - 1]!;
  }
  const { paths, index } = locate(h);
  for (const p of c.damaged) {
    const f = file(paths[p]!);
    f.damaged.push(index[p]!);
    if (erasures[h.groups[p]!]! > usable[h.groups[p]!]!) f.unrepairable.push(index[p]!);
  }
}

function degraded(c: WindowCheck, w: number, path: string): RecoveryWindowReport {
  const parts = [];
  if (c.firstCopyDamaged) parts.push('the first copy of the header is damaged');
  if (c.badRows.length > 0) parts.push(`${c.badRows.length} of ${c.header.rowCrcs.length} recovery blocks are damaged`);
  return { window: w, path, state: 'degraded', reason: parts.join('; '), damagedRows: c.badRows.length };
}
