import { createHash } from 'node:crypto';
import { lstat, opendir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { VerifyProblem } from '../api.js';
import type { OpenedShipment } from '../drive/open.js';
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
  progress.bytesTotal = [...present.values()].reduce((a, b) => a + b, 0);
  progress.filesTotal = s.payload.size;
  let files = 0;
  let bytes = 0;
  for (const [rel, digest] of s.payload) {
    if (signal?.aborted) throw new BrickpostError('CANCELLED', 'verify cancelled');
    const path = join(s.dir, rel);
    if (!present.has(rel)) {
      problems.push({ code: 'FILE_MISSING', message: `${quote(rel)} is missing`, path });
      continue;
    }
    const actual = await sha256File(path, (n) => progress.add(n));
    files++;
    bytes += present.get(rel)!;
    progress.add(0, 1);
    if (actual !== digest) problems.push({ code: 'FIXITY_MISMATCH', message: `${quote(rel)} does not match its SHA-256 in the signed payload manifest`, path });
  }
  const sizes = [...present.values()];
  const total = sizes.reduce((a, b) => a + b, 0);
  if (problems.length === 0 && (total !== s.info.payloadBytes || present.size !== s.info.payloadFiles)) {
    problems.push({ code: 'FIXITY_MISMATCH', message: `Payload-Oxum says ${s.info.payloadBytes}.${s.info.payloadFiles}, the payload is ${total}.${present.size}` });
  }
  return { problems, files, bytes };
}

/**
 * SHA-256 of a file of a drive, read in large blocks (a regular file only: openDriveFile).
 * @throws BrickpostError FILE_MISSING, MALFORMED, IO
 */
export async function sha256File(path: string, onBytes?: (n: number) => void, what = 'payload file'): Promise<string> {
  const h = createHash('sha256');
  const fh = await openDriveFile(path, what);
  try {
    for await (const chunk of fh.createReadStream({ highWaterMark: 4 << 20, autoClose: false })) {
      h.update(chunk as Buffer);
      onBytes?.((chunk as Buffer).length);
    }
  } catch (e) {
    throw toEnvironmentError(e, `cannot read ${what}`);
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
