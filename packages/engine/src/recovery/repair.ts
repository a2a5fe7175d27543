/**
 * repairRecovery: the scan pass, then a repair pass over the windows with
 * damage. Each damaged group within budget is decoded from its intact
 * members and recovery rows; every rebuilt block whose CRC-32 matches is
 * written in place at its offset. Files are then cut or extended to their
 * recorded size, fsynced, and checked against the payload manifest.
 *
 * Safety: only files the payload manifest lists, never through a symbolic
 * link; a file whose SHA-256 already matches the manifest is never written
 * (the recovery data disagreeing with it is then what is wrong), and a
 * missing file is recreated only when all of it can be rebuilt.
 */
import { crc32 } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { shellWord } from '../io/shell.js';
import { syncDir } from '../io/sync.js';
import { createInBag, Handles, openInBag, probe, readAt, sha256Of, type OnReadError } from './bag-io.js';
import { decodeGroup, intactRows, rowNumber } from './decode.js';
import { groupMembers, locate } from './header.js';
import { readWindowHeader } from './rec-file.js';
import type { RecoveryFileReport, RecoveryReadOptions, RecoveryReport } from './report.js';
import { scanPass, type DamagedWindow } from './scan.js';

/** A file being repaired and the blocks still to be rebuilt in it. */
interface Target {
  file: RecoveryFileReport;
  pending: number;
}

/**
 * Checks a bag's recovery data like scanRecovery, then rebuilds every
 * damaged block it can and writes it in place (recreating a missing file
 * that can be rebuilt whole, restoring a cut-off or overlong file's size),
 * fsyncs what it changed and re-checks each changed file's SHA-256 against
 * manifest-sha256.txt. Per file the report says intact, repaired,
 * unrepairable (with the blocks beyond the budget) or digest-mismatch.
 * A read that fails while rebuilding (not a block the scan found bad: the
 * drive failing under the repair) leaves what it kept from being repaired
 * to an IO error naming the file, rather than to a verdict of damage.
 * @throws BrickpostError as scanRecovery; NO_SPACE, READ_ONLY, PERMISSION, IO
 * when a write fails, or a read while rebuilding; UNSAFE_ENTRY when a link
 * appears during the repair; CANCELLED
 */
export async function repairRecovery(bagDir: string, opts: RecoveryReadOptions = {}): Promise<RecoveryReport> {
  const state = await scanPass(bagDir, opts);
  const { report, manifest } = state;
  const targets = new Map<string, Target>();
  for (const f of report.files) {
    if (f.status !== 'repairable' && !(f.status === 'unrepairable' && f.actualSize !== null && f.damaged.length > f.unrepairable.length)) continue;
    if (f.actualSize !== null && (await digestOf(bagDir, f.path, opts.bound?.(f.path))) === manifest.get(f.path)) {
      Object.assign(f, { status: 'intact', damaged: [], unrepairable: [] });
      f.reason = 'the file matches the payload manifest, so the recovery data that disagrees with it is wrong; the file was left as it is';
      continue;
    }
    targets.set(f.path, { file: f, pending: f.damaged.length - f.unrepairable.length });
  }
  let failed: { e: unknown; path: string } | undefined;
  const onError = (rel: string) => (e: unknown) => void (failed ??= { e, path: join(bagDir, rel) });
  const dirs = new Set<string>();
  const readers = new Handles((rel) => openInBag(bagDir, rel, false));
  const writers = new Handles(async (rel) => {
    if ((await probe(bagDir, rel)).kind !== 'missing') return openInBag(bagDir, rel, true);
    const made = await createInBag(bagDir, rel);
    for (const d of made.dirs) dirs.add(d);
    return made.fh;
  });
  try {
    for (const dw of state.damagedWindows) {
      if (opts.signal?.aborted) throw new BrickpostError('CANCELLED', 'recovery repair cancelled');
      report.repairedBlocks += await repairWindow(bagDir, dw, targets, readers, writers, onError);
    }
  } finally {
    await writers.closeAll();
    await readers.closeAll();
  }
  for (const t of targets.values()) await finish(bagDir, t, manifest.get(t.file.path)!, onError(t.file.path), opts.bound?.(t.file.path));
  if (failed && [...targets.values()].some((t) => t.file.status !== 'repaired')) {
    throw toEnvironmentError(failed.e, 'the repair stopped on a read error', {
      on: 'drive',
      path: failed.path,
      then: `run: brickpost repair ${shellWord(dirname(dirname(bagDir)))}`,
    });
  }
  for (const d of dirs)
    await syncDir(d).catch((e: unknown) => {
      throw toEnvironmentError(e, `cannot sync folder ${d}`);
    });
  report.damagedBlocks = report.files.reduce((t, f) => t + f.damaged.length, 0);
  report.unrepairableBlocks = report.files.reduce((t, f) => t + f.unrepairable.length, 0);
  return report;
}

/** Rebuilds and writes the target blocks of one window; returns how many were written. */
async function repairWindow(
  bagDir: string,
  dw: DamagedWindow,
  targets: Map<string, Target>,
  readers: Handles,
  writers: Handles,
  onError: (rel: string) => OnReadError,
): Promise<number> {
  const rec = await openInBag(bagDir, dw.path, false);
  try {
    const read = await readWindowHeader(rec, (await rec.stat()).size, dw.path, onError(dw.path)).catch(() => undefined);
    if (!read) return 0;
    const h = read.header;
    const B = h.params.blockSize;
    const { paths, index } = locate(h);
    const rows = intactRows(h, dw.badRows);
    const members = groupMembers(h);
    const byGroup = new Map<number, number[]>();
    for (const p of dw.damaged) byGroup.set(h.groups[p]!, [...(byGroup.get(h.groups[p]!) ?? []), p]);
    const member = async (p: number) => share(await readers.get(paths[p]!), index[p]! * B, h.lengths[p]!, h.crcs[p]!, B, onError(paths[p]!));
    let written = 0;
    for (const [q, erased] of byGroup) {
      if (erased.length > rows[q]!.length || !erased.some((p) => targets.has(paths[p]!))) continue;
      const row = async (j: number) => share(rec, read.blocksAt + rowNumber(h, q, j) * B, B, h.rowCrcs[rowNumber(h, q, j)]!, B, onError(dw.path));
      for (const [p, block] of await decodeGroup(h, q, members[q]!, erased, rows[q]!, member, row)) {
        const t = targets.get(paths[p]!);
        if (!t) continue;
        await writeAt(await writers.get(t.file.path), block, index[p]! * B, t.file.path);
        t.pending--;
        written++;
      }
    }
    return written;
  } finally {
    await rec.close();
  }
}

/** B bytes at `pos` (the first `len` read and CRC-checked, the rest zero), or undefined when they cannot be read intact. */
async function share(fh: FileHandle, pos: number, len: number, crc: number, B: number, onError?: OnReadError): Promise<Uint8Array | undefined> {
  const buf = Buffer.alloc(B);
  const block = buf.subarray(0, len);
  return (await readAt(fh, block, pos, onError)) === len && crc32(block) === crc ? buf : undefined;
}

async function writeAt(fh: FileHandle, block: Buffer, pos: number, rel: string): Promise<void> {
  try {
    for (let done = 0; done < block.length;) done += (await fh.write(block, done, block.length - done, pos + done)).bytesWritten;
  } catch (e) {
    throw toEnvironmentError(e, `cannot write the rebuilt block at offset ${pos} of ${rel}`);
  }
}

/**
 * Restores the recorded size (a file longer than it is cut to it: no byte
 * past it belongs to the file), fsyncs, and sets the file's status from its
 * SHA-256, read no further than `max`, what signed data allows the file.
 */
async function finish(bagDir: string, t: Target, digest: string, onError: OnReadError, max?: number): Promise<void> {
  const f = t.file;
  if ((await probe(bagDir, f.path)).kind === 'missing') {
    f.status = 'unrepairable';
    f.reason = `missing, and ${t.pending} of its blocks could not be rebuilt`;
    return;
  }
  const fh = await openInBag(bagDir, f.path, true);
  let actual: string | undefined;
  try {
    if (f.size !== null && (await fh.stat()).size !== f.size) await fh.truncate(f.size);
    await fh.sync();
    actual = await sha256Of(fh, max, onError);
  } catch (e) {
    throw toEnvironmentError(e, `cannot finish the repair of ${quote(f.path)}`, { on: 'drive', path: join(bagDir, f.path) });
  } finally {
    await fh.close();
  }
  const left = f.unrepairable.length + t.pending;
  if (actual === digest) {
    f.status = 'repaired';
    delete f.reason;
  } else if (left > 0) {
    f.status = 'unrepairable';
    f.reason = `${left} of ${f.damaged.length} damaged blocks could not be rebuilt`;
  } else {
    f.status = 'digest-mismatch';
    f.reason = 'every damaged block was rebuilt, but the file still does not match the payload manifest';
  }
}

/** SHA-256 of a protected file, or undefined when it cannot be read whole or is longer than `max`. */
async function digestOf(bagDir: string, rel: string, max?: number): Promise<string | undefined> {
  const fh = await openInBag(bagDir, rel, false);
  try {
    return await sha256Of(fh, max);
  } finally {
    await fh.close();
  }
}
