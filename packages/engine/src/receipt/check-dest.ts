import { createHmac } from 'node:crypto';
import { lstat, open, readlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { type age, BrickpostError, quote, RECORD_LIMITS, refLength, toBytes, type ChunkRef } from '@brickpost/manifest';
import { fsPath } from '../io/fs-path.js';
import type { ReceiptVerification, VerifyProblem } from '../api/index.js';
import { chunkKey } from '../chunk/index.js';
import type { Progress } from '../io/progress.js';
import { readManifestFile } from '../verify/manifest-stream.js';
import { leavesDest } from '../ingest/dest-view.js';
import { RECEIPT_LIMITS } from './schema.js';

/**
 * How far a file's mtime may be from the manifest's and still match: ingest
 * sets times through utimes' double seconds, rounded to the microsecond,
 * which moves them by up to about 1.1 µs (measured).
 */
export const MTIME_SLACK_NS = 2000n;

/**
 * Checks a destination against the manifest of its current shipment
 * (`manifest`: DEST/.brickpost/manifests/ID.age), entry by entry in
 * manifest order, in bounded memory. Level 'stat': every entry exists with
 * its type, every file with its size and mtime (folders' mtimes are not
 * compared: adding a file changes them and takes nothing away), every
 * symbolic link with its target, every hard link as the same file as its
 * first name (links pointing out of DEST and special files that ingest did
 * not create are not required). Level 'deep': also re-reads every file and
 * checks each chunk's keyed id, and that holes read as zeros.
 * Problems carry the entry's path relative to DEST; at most 100 are kept.
 * @throws BrickpostError NO_MATCHING_KEY, PAYLOAD_CORRUPT, MALFORMED, TRUNCATED (the kept manifest), CANCELLED
 */
export async function checkDest(
  dest: string,
  manifest: string,
  identities: age.Identity[],
  deep: boolean,
  progress: Progress,
  signal?: AbortSignal,
): Promise<ReceiptVerification> {
  const problems: VerifyProblem[] = [];
  let ok = true;
  const problem = (code: string, message: string, path: string): void => {
    ok = false;
    if (problems.length < RECEIPT_LIMITS.problems) problems.push({ code, message, path });
  };
  let files = 0;
  let bytes = 0;
  let key: Buffer | null = null;
  let badDir: string | null = null;
  let file: { p: string; fh: FileHandle | null; at: number } | null = null;
  const buf = deep ? Buffer.allocUnsafe(RECORD_LIMITS.maxChunkLength) : Buffer.alloc(0);

  const closeFile = async (): Promise<void> => {
    await file?.fh?.close();
    file = null;
  };
  const checkChunks = async (c: ChunkRef[]): Promise<void> => {
    if (!file?.fh) return;
    for (const ref of c) {
      const len = refLength(ref);
      if (ref.length === 1) {
        // A hole reads as zeros; read it in pieces of at most one chunk.
        for (let done = 0; done < len;) {
          const n = Math.min(len - done, buf.length);
          const { bytesRead } = await file.fh.read(buf, 0, n, file.at + done);
          if (bytesRead !== n || buf.subarray(0, n).some((b) => b !== 0)) {
            problem('CHUNK_MISMATCH', `${quote(file.p)} differs from shipment's content in a hole at byte ${file.at + done}`, file.p);
            await file.fh.close();
            file.fh = null;
            return;
          }
          done += n;
        }
        file.at += len;
        progress.add(len);
        continue;
      }
      const { bytesRead } = await file.fh.read(buf, 0, len, file.at);
      const id = createHmac('sha256', key!).update(buf.subarray(0, bytesRead)).digest('hex');
      if (bytesRead !== len || id !== ref[0]) {
        problem('CHUNK_MISMATCH', `${quote(file.p)} differs from shipment's content at byte ${file.at}`, file.p);
        await file.fh.close();
        file.fh = null;
        return;
      }
      file.at += len;
      progress.add(len);
    }
  };

  try {
    for await (const r of readManifestFile(manifest, identities)) {
      if (signal?.aborted) throw new BrickpostError('CANCELLED', 'receipt cancelled');
      if (r.t === 'shipment') {
        key = chunkKey(Buffer.from(r.secret, 'base64'));
        continue;
      }
      if (r.t === 'more') {
        await checkChunks(r.c);
        continue;
      }
      await closeFile();
      if (r.t === 'pack' || r.t === 'end') continue;
      if (badDir !== null && r.p.startsWith(`${badDir}/`)) continue;
      badDir = null;
      const abs = fsPath(join(dest, r.p));
      const st = await lstat(abs, { bigint: true }).catch((e: unknown) => e as NodeJS.ErrnoException);
      if (r.t === 'link') {
        if (st instanceof Error) {
          if (st.code !== 'ENOENT' || !leavesDest(r.p, r.target))
            problem(
              st.code === 'ENOENT' ? 'FILE_MISSING' : 'IO',
              `symbolic link ${quote(r.p)} is ${st.code === 'ENOENT' ? 'missing' : `unreadable: ${st.message}`}`,
              r.p,
            );
        } else if (!st.isSymbolicLink() || !(await readlink(abs, { encoding: 'buffer' })).equals(toBytes(r.target)))
          problem('UNEXPECTED_FILE', `${quote(r.p)} is not the symbolic link to ${quote(r.target)} the shipment has`, r.p);
        continue;
      }
      if (r.t === 'hard') {
        const to = await lstat(fsPath(join(dest, r.to)), { bigint: true }).catch(() => null);
        if (st instanceof Error || !st.isFile() || !to || st.ino !== to.ino || st.dev !== to.dev)
          problem('UNEXPECTED_FILE', `${quote(r.p)} is not a hard link of ${quote(r.to)}`, r.p);
        continue;
      }
      if (r.t === 'special') {
        // Created only on request (ingest --specials, as root): one that is there must be of its kind.
        if (
          !(st instanceof Error) &&
          (r.kind === 'fifo' ? !st.isFIFO() : r.kind === 'socket' ? !st.isSocket() : r.kind === 'char' ? !st.isCharacterDevice() : !st.isBlockDevice())
        ) {
          problem('UNEXPECTED_FILE', `${quote(r.p)} is not the ${r.kind} the shipment has`, r.p);
        }
        continue;
      }
      if (r.t === 'dir') {
        if (st instanceof Error)
          problem(
            st.code === 'ENOENT' ? 'FILE_MISSING' : 'IO',
            `folder ${quote(r.p)} is ${st.code === 'ENOENT' ? 'missing' : `unreadable: ${st.message}`}`,
            r.p,
          );
        else if (!st.isDirectory()) problem('UNEXPECTED_FILE', `${quote(r.p)} is not a folder`, r.p);
        else continue;
        badDir = r.p;
        continue;
      }
      files++;
      bytes += r.size;
      if (st instanceof Error) {
        problem(st.code === 'ENOENT' ? 'FILE_MISSING' : 'IO', `file ${quote(r.p)} is ${st.code === 'ENOENT' ? 'missing' : `unreadable: ${st.message}`}`, r.p);
      } else if (!st.isFile()) {
        problem('UNEXPECTED_FILE', `${quote(r.p)} is not a regular file`, r.p);
      } else if (st.size !== BigInt(r.size)) {
        problem('FIXITY_MISMATCH', `${quote(r.p)} has ${st.size} bytes, the shipment's file ${r.size}`, r.p);
      } else if (abs64(st.mtimeNs - BigInt(r.mtime)) > MTIME_SLACK_NS) {
        problem('FIXITY_MISMATCH', `${quote(r.p)} was modified (mtime ${st.mtimeNs} ns, the shipment's ${r.mtime} ns)`, r.p);
      } else if (deep) {
        const fh = await open(abs, 'r').catch((e: unknown) => e as NodeJS.ErrnoException);
        if (fh instanceof Error) problem('IO', `cannot read ${quote(r.p)}: ${fh.message}`, r.p);
        else {
          file = { p: r.p, fh, at: 0 };
          progress.add(0, 1);
          await checkChunks(r.c);
          continue;
        }
      }
      progress.add(r.size, 1);
    }
  } finally {
    await closeFile();
  }
  return { level: deep ? 'deep' : 'stat', ok, files, bytes, problems };
}

function abs64(n: bigint): bigint {
  return n < 0n ? -n : n;
}
