import { lstat, opendir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { BrickpostError, isBrickpostError, quote } from '@brickpost/manifest';
import type { VerifyProblem } from '../api/index.js';
import type { OpenedShipment } from '../drive/open.js';
import { payloadBound, withinTotal } from '../drive/payload-bound.js';
import { checkBound, openDriveFile, type SizeBound } from '../io/read-limited.js';
import { toEnvironmentError } from '../io/errors.js';
import { fromNative, native } from '../io/native.js';
import { sha256File } from '../io/sha256-file.js';
import type { Progress } from '../io/progress.js';

/**
 * Keyless fixity (FORMAT.md §verification level 1): every payload file the
 * signed payload manifest lists is present and has its SHA-256, no other
 * file sits under data/, and Payload-Oxum holds. Files are read in payload
 * manifest order, which is pack order, so a drive is read front to back.
 * Returns the problems found (empty when all holds).
 */
export async function checkFixity(
  s: OpenedShipment,
  progress: Progress,
  signal?: AbortSignal,
  /** Payload files (relative paths) to leave unread: listed, bounded and returned as `deferred` for a reader that checks them anyway. */
  defer?: (rel: string) => boolean,
): Promise<{ problems: VerifyProblem[]; files: number; bytes: number; deferred: DeferredFixity }> {
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
  const read = [...present.entries()].filter(([rel]) => !defer?.(rel));
  progress.bytesTotal = read.reduce((a, [rel, size]) => a + Math.min(size, payloadBound(s, rel).max), 0);
  progress.filesTotal = s.payload.size - (present.size - read.length);
  let files = 0;
  let bytes = 0;
  // What is read in all stays within Payload-Oxum: a file larger than signed data allows is refused unread.
  let left = total;
  const jobs: HashJob[] = [];
  const deferred: DeferredFixity = { jobs: [], bytes: 0 };
  for (const [rel, digest] of s.payload) {
    const path = join(s.dir, rel);
    const bound = withinTotal(payloadBound(s, rel), left, total);
    // Problems found before reading keep their place in payload order.
    if (!present.has(rel)) {
      jobs.push({ rel, path, digest, bound, size: 0, early: { code: 'FILE_MISSING', message: `${quote(rel)} is missing`, path } });
      continue;
    }
    try {
      checkBound(present.get(rel)!, bound, quote(rel), path);
    } catch (e) {
      if (!isBrickpostError(e) || e.code !== 'FIXITY_MISMATCH') throw e;
      jobs.push({ rel, path, digest, bound, size: 0, early: { code: e.code, message: e.message, path } });
      continue;
    }
    left -= present.get(rel)!;
    if (defer?.(rel)) {
      deferred.jobs.push({ rel, path, digest, bound, size: present.get(rel)! });
      deferred.bytes += present.get(rel)!;
    } else jobs.push({ rel, path, digest, bound, size: present.get(rel)! });
  }
  const hashed = await hashJobs(jobs, progress, signal);
  problems.push(...hashed.problems);
  files += hashed.files;
  bytes += hashed.bytes;
  const found = [...present.values()].reduce((a, b) => a + b, 0);
  if (problems.length === 0 && (found !== s.info.payloadBytes || present.size !== s.info.payloadFiles)) {
    problems.push({
      code: 'FIXITY_MISMATCH',
      message: `Payload-Oxum says ${s.info.payloadBytes}.${s.info.payloadFiles}, the payload is ${found}.${present.size}`,
    });
  }
  return { problems, files, bytes, deferred };
}

/** Payload files checkFixity left unread, each present and within its bound. */
export interface DeferredFixity {
  jobs: HashJob[];
  bytes: number;
}

/**
 * Reads and hashes the files checkFixity deferred, for when the reader that
 * was to check them stopped early: their problems as checkFixity words them.
 */
export function checkDeferred(
  d: DeferredFixity,
  progress: Progress,
  signal?: AbortSignal,
): Promise<{ problems: VerifyProblem[]; files: number; bytes: number }> {
  progress.bytesTotal = d.jobs.reduce((a, j) => a + Math.min(j.size, j.bound.max), 0);
  progress.filesTotal = d.jobs.length;
  return hashJobs(d.jobs, progress, signal);
}

async function hashJobs(jobs: HashJob[], progress: Progress, signal?: AbortSignal): Promise<{ problems: VerifyProblem[]; files: number; bytes: number }> {
  const problems: VerifyProblem[] = [];
  let files = 0;
  let bytes = 0;
  for await (const { job, actual } of hashAll(jobs, progress, signal)) {
    if (job.early) {
      problems.push(job.early);
      continue;
    }
    if (actual instanceof BrickpostError) {
      problems.push({ code: actual.code, message: actual.message, path: job.path });
      continue;
    }
    files++;
    bytes += job.size;
    progress.add(0, 1);
    if (actual !== job.digest)
      problems.push({ code: 'FIXITY_MISMATCH', message: `${quote(job.rel)} does not match its SHA-256 in the signed payload manifest`, path: job.path });
  }
  return { problems, files, bytes };
}

/** A payload file to hash, with the bound its size must keep. */
interface HashJob {
  rel: string;
  path: string;
  digest: string;
  bound: SizeBound;
  /** Its size as listed (0 when it is missing). */
  size: number;
  /** A problem found without reading the file (missing, too large): it is not read. */
  early?: VerifyProblem;
}

/**
 * The SHA-256 of each job's file, in order, or the FIXITY_MISMATCH of one
 * past its bound. On the native core a file per core is read and hashed at
 * once, each on a thread of its own, taking files in payload order (a
 * drive is read front to back); otherwise one after another here.
 */
async function* hashAll(jobs: HashJob[], progress: Progress, signal?: AbortSignal): AsyncGenerator<{ job: HashJob; actual: string | BrickpostError }> {
  const core = native();
  const one = async (job: HashJob): Promise<string | BrickpostError> => {
    if (job.early) return '';
    try {
      if (!core) return await sha256File(job.path, (n) => progress.add(n), 'payload file', job.bound);
      const fh = await openDriveFile(job.path, 'payload file');
      try {
        const named = `payload file ${quote(job.path)}`;
        checkBound((await fh.stat()).size, job.bound, named, job.path);
        const d = await core
          .hashFile(fh.fd, job.bound.max + 1)
          .catch((e: unknown) =>
            Promise.reject(fromNative(e, (errno) => toEnvironmentError(errno, 'cannot read payload file', { on: 'drive', path: job.path }))),
          );
        checkBound(d.bytes, job.bound, named, job.path, false);
        progress.add(d.bytes);
        return d.sha256;
      } catch (e) {
        throw toEnvironmentError(e, 'cannot read payload file');
      } finally {
        await fh.close();
      }
    } catch (e) {
      if (!isBrickpostError(e) || e.code !== 'FIXITY_MISMATCH') throw e;
      return e;
    }
  };
  // Each thread takes the next file as soon as it is done with its own, so none waits on a larger
  // file another thread still reads: the threads stay busy to the end of the drive. Results are
  // handed on in payload order all the same; those that finish early wait, a digest each.
  const width = core ? Math.max(2, core.threads()) : 1;
  const results = jobs.map(() => {
    let settle!: (r: Promise<string | BrickpostError>) => void;
    const p = new Promise<string | BrickpostError>((resolve) => (settle = resolve));
    // One left unread after an earlier failure is not an unhandled rejection.
    p.catch(() => undefined);
    return { p, settle };
  });
  let next = 0;
  let stop = false;
  const worker = async (): Promise<void> => {
    while (!stop && next < jobs.length) {
      const i = next++;
      const r = signal?.aborted ? Promise.reject(new BrickpostError('CANCELLED', 'verify cancelled')) : one(jobs[i]!);
      r.catch(() => {
        stop = true;
      });
      results[i]!.settle(r);
      await r.catch(() => undefined);
    }
  };
  const workers = Array.from({ length: width }, worker);
  try {
    for (const [i, job] of jobs.entries()) yield { job, actual: await results[i]!.p };
  } finally {
    stop = true;
    await Promise.allSettled(workers);
  }
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
