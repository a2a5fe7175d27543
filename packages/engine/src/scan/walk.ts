import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { compareNames, componentProblem, foldKey, BrickpostError, quote, RESERVED_ROOT_NAME } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';

/** A source entry in manifest order. */
export interface SourceEntry {
  type: 'dir' | 'file';
  /** Manifest path: relative, `/`-separated. */
  path: string;
  /** Absolute path on this machine. */
  abs: string;
  size: number;
  mode: number;
  mtimeNs: bigint;
  ino: bigint;
  ctimeNs: bigint;
}

export interface SkippedEntry {
  path: string;
  reason: string;
}

/**
 * Walks a source tree depth-first in manifest order (siblings by fold key,
 * then bytes), yielding directories before their contents. Symlinks, special
 * files and names that break the path grammar are reported to `skip` and
 * left out. Two siblings whose names collide on a case-insensitive file
 * system are refused: shipping both would lose one at some receivers.
 * Memory holds one directory listing per level.
 * @throws BrickpostError UNSAFE_ENTRY, NOT_FOUND, PERMISSION, IO
 */
export async function* walk(root: string, skip: (s: SkippedEntry) => void): AsyncGenerator<SourceEntry> {
  yield* walkDir(root, '', skip);
}

/** Entries stat'ed at once within one directory. */
const STAT_BATCH = 64;

/**
 * Directories are listed, and their entries stat'ed, with synchronous calls:
 * an asynchronous call costs a thread-pool round trip (measured ten times
 * the CPU of the walk itself: 330-680 ms against 40 ms for the 5 436
 * entries of the 300 MiB benchmark dataset), and pack walks the tree twice
 * (once to measure it). After each batch of STAT_BATCH stats the walk
 * lets the event loop turn, so a walk whose consumer awaits nothing (measure)
 * does not hold the thread for the whole tree.
 */
async function* walkDir(abs: string, rel: string, skip: (s: SkippedEntry) => void): AsyncGenerator<SourceEntry> {
  const names: string[] = [];
  await nextTurn();
  try {
    for (const raw of readdirSync(abs, { encoding: 'buffer' })) {
      const name = raw.toString('utf8');
      const relName = rel ? `${rel}/${name}` : name;
      if (!Buffer.from(name, 'utf8').equals(raw)) {
        skip({ path: rel ? `${rel}/${raw.toString('latin1')}` : raw.toString('latin1'), reason: 'name is not valid UTF-8' });
        continue;
      }
      if (rel === '' && foldKey(name) === RESERVED_ROOT_NAME) {
        skip({ path: name, reason: 'reserved name (a brickpost destination state folder)' });
        continue;
      }
      const problem = componentProblem(name);
      if (problem) {
        skip({ path: relName, reason: problem });
        continue;
      }
      names.push(name);
    }
  } catch (e) {
    throw toEnvironmentError(e, `cannot read directory ${quote(abs)}`);
  }
  names.sort(compareNames);
  for (let i = 1; i < names.length; i++) {
    if (foldKey(names[i - 1]!) === foldKey(names[i]!)) {
      throw new BrickpostError('UNSAFE_ENTRY', `${quote(join(rel, names[i - 1]!))} and ${quote(join(rel, names[i]!))} differ only in case or unicode form`, {
        hint: 'rename one of them: they would overwrite each other on case-insensitive file systems (Windows, macOS)',
      });
    }
  }
  for (let b = 0; b < names.length; b += STAT_BATCH) {
    const batch = names.slice(b, b + STAT_BATCH);
    if (b > 0) await nextTurn();
    const stats = batch.map((name) => statOrError(join(abs, name)));
    for (let k = 0; k < batch.length; k++) {
      const name = batch[k]!;
      const childAbs = join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      const st = stats[k]!;
      if (st instanceof Error) {
        if (st.code === 'ENOENT') {
          skip({ path: childRel, reason: 'vanished while scanning' });
          continue;
        }
        throw toEnvironmentError(st, 'cannot stat');
      }
      const base = { path: childRel, abs: childAbs, mode: Number(st.mode & 0o777n), mtimeNs: st.mtimeNs, ino: st.ino, ctimeNs: st.ctimeNs };
      if (st.isDirectory()) {
        yield { type: 'dir', size: 0, ...base };
        yield* walkDir(childAbs, childRel, skip);
      } else if (st.isFile()) {
        yield { type: 'file', size: Number(st.size), ...base };
      } else {
        skip({ path: childRel, reason: st.isSymbolicLink() ? 'symbolic link (not shipped)' : 'special file (not shipped)' });
      }
    }
  }
}

function statOrError(path: string): BigIntStats | NodeJS.ErrnoException {
  try {
    return lstatSync(path, { bigint: true });
  } catch (e) {
    return e as NodeJS.ErrnoException;
  }
}

/** Totals of a source tree, for progress and free-space checks. */
export async function measure(root: string): Promise<{ files: number; dirs: number; bytes: number }> {
  const t = { files: 0, dirs: 0, bytes: 0 };
  for await (const e of walk(root, () => undefined)) {
    if (e.type === 'dir') t.dirs++;
    else (t.files++, (t.bytes += e.size));
  }
  return t;
}
