import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BrickpostError, quote, type DriveSet, type SetFile } from '@brickpost/manifest';
import { commandLine } from '../io/command.js';
import { failpoint } from '../io/failpoint.js';
import type { Progress } from '../io/progress.js';
import { SeqWriter } from '../io/seq-writer.js';
import { reconstructionMatrix, combine } from '../parity/rs.js';
import { sha256File } from '../io/sha256-file.js';
import { ShareStream } from './rebuild.js';

const UNIT = 1 << 20;

/** What writing one payload file of a rebuilt drive did. */
export interface Written {
  bytes: number;
  /** The file was already whole (an interrupted run wrote it): it was kept. */
  kept: boolean;
}

/**
 * True when `file` already holds `size` bytes with SHA-256 `sha256`: an
 * interrupted rebuild finished it, and it is kept.
 */
export async function alreadyWhole(file: string, size: number | undefined, sha256: string): Promise<boolean> {
  const st = await stat(file).catch(() => null);
  if (!st?.isFile() || (size !== undefined && st.size !== size)) return false;
  return (await sha256File(file, undefined, 'rebuilt file').catch(() => '')) === sha256;
}

/**
 * Writes the files of share `target` of `set` (a data drive's packs or a
 * parity drive's parity files) into the bag folder `out`, each range the
 * combination of the same range of the k share streams `chosen` (on
 * `dirs`), FORMAT.md §parity. Each file must match its SHA-256 in the set
 * file; when one does not, the source files that cover it are checked to
 * name the damaged one. Files already whole are kept.
 * @throws BrickpostError FIXITY_MISMATCH (naming the damaged source file when one is), FILE_MISSING, TRUNCATED, CANCELLED, NO_SPACE, IO
 */
export async function writeShare(
  set: DriveSet,
  target: number,
  chosen: number[],
  dirs: Map<number, string>,
  out: string,
  progress: Progress,
  signal?: AbortSignal,
): Promise<Written[]> {
  const [row] = reconstructionMatrix(set.data, set.parity, chosen, [target]);
  const streams = chosen.map((i) => new ShareStream(set.shares[i]!, dirs.get(i)!));
  const done: Written[] = [];
  try {
    for (const f of set.shares[target]!.files) {
      const path = join(out, f.path);
      if (await alreadyWhole(path, f.size, f.sha256)) {
        progress.add(f.size, 1);
        done.push({ bytes: f.size, kept: true });
        continue;
      }
      await mkdir(dirname(path), { recursive: true });
      await rm(path, { force: true });
      const w = await SeqWriter.create(path, { on: 'drive' });
      try {
        for (let pos = f.offset; pos < f.offset + f.size; pos += UNIT) {
          if (signal?.aborted) throw new BrickpostError('CANCELLED', 'cancelled while rebuilding a drive');
          const len = Math.min(UNIT, f.offset + f.size - pos);
          const srcs = await Promise.all(streams.map((s) => s.read(pos, len)));
          const buf = Buffer.allocUnsafe(len);
          combine(buf, srcs, row!, len);
          await w.write(buf);
          progress.add(len);
        }
      } catch (e) {
        await w.abort();
        throw e;
      }
      if ((await w.close()) !== f.sha256) {
        await rm(path, { force: true });
        throw await blame(set, target, f, chosen, dirs);
      }
      progress.add(0, 1);
      done.push({ bytes: f.size, kept: false });
      failpoint('rebuild-file');
    }
  } finally {
    for (const s of streams) await s.close();
  }
  return done;
}

/**
 * The error for a rebuilt file that does not match its SHA-256: the
 * source files whose stream ranges overlap it are hashed, and the first
 * that differs from the set file is named. Memory: one file hashed at a time.
 */
async function blame(set: DriveSet, target: number, f: SetFile, chosen: number[], dirs: Map<number, string>): Promise<BrickpostError> {
  for (const i of chosen) {
    for (const g of set.shares[i]!.files) {
      if (g.offset >= f.offset + f.size || g.offset + g.size <= f.offset) continue;
      const path = join(dirs.get(i)!, g.path);
      const got = await sha256File(path, undefined, `${quote(g.path)} of drive ${i + 1}`).catch(() => '');
      if (got !== g.sha256) {
        return new BrickpostError(
          'FIXITY_MISMATCH',
          `${quote(g.path)} on drive ${i + 1} does not match its SHA-256 in the set file: drive ${i + 1} is damaged, and drive ${target + 1} cannot be rebuilt from it`,
          {
            path,
            hint: `${commandLine(['repair', dirs.get(i)!])} repairs it from its recovery data; or give another drive of the set instead of it`,
          },
        );
      }
    }
  }
  return new BrickpostError(
    'FIXITY_MISMATCH',
    `rebuilt ${quote(f.path)} of drive ${target + 1} does not match its SHA-256 in the set file, though every source file read checks out`,
    {
      hint: `verify each drive used: ${chosen.map((i) => commandLine(['verify', dirs.get(i)!])).join('; ')}`,
    },
  );
}
