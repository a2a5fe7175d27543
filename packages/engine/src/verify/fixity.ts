import { createHash } from 'node:crypto';
import { lstat, opendir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { BrickpostError, isBrickpostError, quote } from '@brickpost/manifest';
import type { VerifyProblem } from '../api.js';
import type { OpenedShipment } from '../drive/open.js';
import { checkBound, payloadBound, withinTotal, type SizeBound } from '../drive/payload-bound.js';
import { openDriveFile } from '../drive/read-limited.js';
import { toEnvironmentError } from '../io/errors.js';
import type { Progress } from '../io/progress.js';

/**
 * Keyless fixity (FORMAT.md §verification level 1): every payload file the
 * signed payload manifest lists is present and has its SHA-256, no other
 * file sits under data/, and Payload-Oxum holds. Files are read in payload
 * manifest order, which is pack order, so a drive is read front to back.
 * Returns the problems found (empty when all holds).
 */
export async function checkFixity(s: OpenedShipment, progress: Progress, signal?: AbortSignal): Promise<{ problems: VerifyProblem[]; files: number; bytes: number }> {
  const problems: VerifyProblem[] = [];
  const present = new Map<string, number>();
  let extra = 0;
  for await (const f of listFiles(join(s.dir, 'data'))) {
    const rel = relative(s.dir, f.path).split('\\').join('/');
    if (f.kind !== 'file') {
      problems.push({ code: 'UNEXPECTED_FILE', message: `${quote(rel)} in the payload is not a regular file`, path: f.path });
    } else if (!s.payload.has(rel)) {
      if (++extra <= 100) problems.push({ code: 'UNEXPECTED_FILE', message: `${quote(rel)} is not listed in the payload manifest`, path: f.path });
    } else present.set(rel, f.size);
  }
  const total = s.info.payloadBytes;
  progress.bytesTotal = [...present.entries()].reduce((a, [rel, size]) => a + Math.min(size, payloadBound(s, rel).max), 0);
  progress.filesTotal = s.payload.size;
  let files = 0;
  let bytes = 0;
  // What is read in all stays within Payload-Oxum: a file larger than signed data allows is refused unread.
  let left = total;
  for (const [rel, digest] of s.payload) {
    if (signal?.aborted) throw new BrickpostError('CANCELLED', 'verify cancelled');
    const path = join(s.dir, rel);
    if (!present.has(rel)) {
      problems.push({ code: 'FILE_MISSING', message: `${quote(rel)} is missing`, path });
      continue;
    }
    const bound = withinTotal(payloadBound(s, rel), left, total);
    let actual: string;
    try {
      checkBound(present.get(rel)!, bound, quote(rel), path);
      actual = await sha256File(path, (n) => progress.add(n), 'payload file', bound);
    } catch (e) {
      if (!isBrickpostError(e) || e.code !== 'FIXITY_MISMATCH') throw e;
      problems.push({ code: e.code, message: e.message, path });
      continue;
    }
    files++;
    bytes += present.get(rel)!;
    left -= present.get(rel)!;
    progress.add(0, 1);
    if (actual !== digest) problems.push({ code: 'FIXITY_MISMATCH', message: `${quote(rel)} does not match its SHA-256 in the signed payload manifest`, path });
  }
  const found = [...present.values()].reduce((a, b) => a + b, 0);
  if (problems.length === 0 && (found !== s.info.payloadBytes || present.size !== s.info.payloadFiles)) {
    problems.push({ code: 'FIXITY_MISMATCH', message: `Payload-Oxum says ${s.info.payloadBytes}.${s.info.payloadFiles}, the payload is ${found}.${present.size}` });
  }
  return { problems, files, bytes };
}

/**
 * SHA-256 of a file of a drive, read in large blocks (a regular file only:
 * openDriveFile). With a bound, a file larger than it is refused before it
 * is read, and reading stops one byte past it (a file that grows meanwhile).
 * @throws BrickpostError FILE_MISSING, MALFORMED, FIXITY_MISMATCH (past the bound), IO
 */
export async function sha256File(path: string, onBytes?: (n: number) => void, what = 'payload file', bound?: SizeBound): Promise<string> {
  const h = createHash('sha256');
  const fh = await openDriveFile(path, what);
  try {
    const named = `${what} ${quote(path)}`;
    if (bound) checkBound((await fh.stat()).size, bound, named, path);
    let read = 0;
    for await (const chunk of fh.createReadStream({ highWaterMark: 4 << 20, autoClose: false, ...(bound ? { end: bound.max } : {}) })) {
      read += (chunk as Buffer).length;
      checkBound(read, bound, named, path, false);
      h.update(chunk as Buffer);
      onBytes?.((chunk as Buffer).length);
    }
  } catch (e) {
    throw toEnvironmentError(e, `cannot read ${what} ${quote(path)}`, { on: 'drive', path });
  } finally {
    await fh.close();
  }
  return h.digest('hex');
}

async function* listFiles(dir: string): AsyncGenerator<{ path: string; kind: 'file' | 'other'; size: number }> {
  let d;
  try {
    d = await opendir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  for await (const ent of d) {
    const p = join(dir, ent.name);
    if (ent.isDirectory()) yield* listFiles(p);
    else if (ent.isFile()) yield { path: p, kind: 'file', size: (await lstat(p)).size };
    else yield { path: p, kind: 'other', size: 0 };
  }
}
