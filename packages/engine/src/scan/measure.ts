import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { BrickpostError, foldKey, nameProblem, quote, RESERVED_ROOT_NAME } from '@brickpost/manifest';
import { deserializeError, endWorker, WORKER_LIMITS, type SerializedError } from '../chunk/messages.js';
import { toEnvironmentError } from '../io/errors.js';
import { fsPath } from '../io/fs-path.js';
import { listDirAsync, type Listing } from './listing.js';
import { isCache, type WalkOptions } from './walk.js';

/** Totals of a source tree: files and their bytes, folders, and every other entry (hard links after a file's first name, symbolic links, special files). */
export interface SourceTotals {
  files: number;
  dirs: number;
  bytes: number;
  others: number;
}

/** What the measuring thread is started with (measure-worker.ts). */
export interface MeasureInit {
  root: string;
  /** The exclude patterns (compiled again on the thread); none for no excludes. */
  patterns: string[];
  excludeCaches: boolean;
}

/** The measuring thread's one message. */
export type MeasureReply = { ok: true; totals: SourceTotals } | { ok: false; error: SerializedError };

/** A measure running on its own thread. */
export interface Measuring {
  /** The totals, or the error measure() would throw. */
  totals: Promise<SourceTotals>;
  /** Ends the thread if it still runs (its totals then reject with CANCELLED); resolves once it has ended. */
  stop(): Promise<void>;
}

/** Entries counted between two turns of the event loop, as the walk does. */
const TURN_EVERY = 64;

/**
 * Folders listed at once, each on a thread of libuv's pool: on a cold disk
 * their lstats are answered together, the JavaScript thread stays free
 * for the pack meanwhile, and the walk that follows finds them cached.
 */
const LISTED_AT_ONCE = 8;

/**
 * Totals of a source tree, for progress and free-space checks: what walk()
 * would yield, counted (the same entries left out: excluded, cache
 * folders, vanished, unreadable folders, a top-level reserved name, names
 * that are not shippable), without building its entries. Pack measures
 * while it packs, on the same thread: the walk's per-entry work (sorting
 * by fold key, metadata as bigints, an object per entry) would be spent
 * twice for each file of the tree. Folders are listed several at once
 * (LISTED_AT_ONCE), so the totals do not depend on the order entries are
 * met: hard links count as one file and further names, whichever name
 * comes first.
 * @throws BrickpostError NOT_FOUND, PERMISSION, IO (the source folder itself, or an entry whose lstat fails but for vanishing)
 */
export async function measure(root: string, opts: Pick<WalkOptions, 'exclude' | 'excludeCaches'> = {}): Promise<SourceTotals> {
  const t: SourceTotals = { files: 0, dirs: 0, bytes: 0, others: 0 };
  /** Files with more names to come: dev:ino → the names still expected. */
  const links = new Map<string, number>();
  const { exclude, excludeCaches } = opts;

  /** Folders found and not yet listed: taken last first, so the tree is read depth first, as the walk reads it. */
  const todo: Array<{ abs: string; rel: string }> = [];

  async function dir(abs: string, rel: string, top: boolean): Promise<void> {
    let listing: Listing;
    try {
      listing = await listDirAsync(abs, false);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (top || (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOENT')) throw toEnvironmentError(e, `cannot read directory ${quote(abs)}`);
      return;
    }
    const names = listing.names;
    for (let i = 0; i < names.length; i++) {
      if (i > 0 && i % TURN_EVERY === 0) await nextTurn();
      const name = names[i]!;
      if ((top && foldKey(name) === RESERVED_ROOT_NAME) || nameProblem(name) !== null) continue;
      const st = listing.stat(i);
      if (st instanceof Error) {
        if (st.code === 'ENOENT') continue;
        throw toEnvironmentError(st, 'cannot stat');
      }
      const isDir = st.kind === 'dir';
      const childRel = rel ? `${rel}/${name}` : name;
      if (exclude?.excludes(childRel, isDir)) continue;
      if (isDir) {
        const childAbs = join(abs, name);
        if (excludeCaches && isCache(childAbs)) continue;
        t.dirs++;
        todo.push({ abs: childAbs, rel: childRel });
      } else if (st.kind === 'file') {
        if (st.nlink > 1) {
          const left = links.get(st.identity);
          if (left !== undefined) {
            if (left <= 1) links.delete(st.identity);
            else links.set(st.identity, left - 1);
            t.others++;
            continue;
          }
          links.set(st.identity, st.nlink - 1);
        }
        t.files++;
        t.bytes += st.size;
      } else if (st.kind === 'link') {
        if (readable(join(abs, name))) t.others++;
      } else t.others++;
    }
  }

  await new Promise<void>((resolve, reject) => {
    let running = 0;
    let failed = false;
    const start = (abs: string, rel: string, top: boolean): void => {
      running++;
      dir(abs, rel, top).then(
        () => {
          running--;
          pump();
        },
        (e: unknown) => {
          failed = true;
          reject(e);
        },
      );
    };
    const pump = (): void => {
      if (failed) return;
      while (running < LISTED_AT_ONCE && todo.length > 0) {
        const d = todo.pop()!;
        start(d.abs, d.rel, false);
      }
      if (running === 0) resolve();
    };
    start(root, '', true);
  });
  return t;
}

/** Whether the symbolic link `abs` is still there to be read (the walk leaves out one that vanished). @throws BrickpostError as the walk does */
function readable(abs: string): boolean {
  try {
    readlinkSync(fsPath(abs), { encoding: 'buffer' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw toEnvironmentError(e, `cannot read symbolic link ${quote(abs)}`);
  }
}

/**
 * measure() on a thread of its own, for pack: on a tree of many small files
 * the JavaScript thread is the pack's bottleneck (a stat-cache lookup, a
 * manifest record and a catalog row a file), and counting the tree there
 * took a tenth of it. The thread lists and counts the same entries, with
 * the same exclude patterns; it stays referenced while it runs, so Node
 * cannot exit with the totals unsettled, and `stop` ends it when the pack
 * ends first.
 */
export function measureAside(root: string, opts: Pick<WalkOptions, 'exclude' | 'excludeCaches'> = {}): Measuring {
  const init: MeasureInit = { root, patterns: [...(opts.exclude?.patterns ?? [])], excludeCaches: opts.excludeCaches === true };
  const w = new Worker(new URL('./measure-worker.js', import.meta.url), { workerData: init, resourceLimits: WORKER_LIMITS });
  let settled = false;
  let settle!: { resolve: (t: SourceTotals) => void; reject: (e: Error) => void };
  const totals = new Promise<SourceTotals>((resolve, reject) => (settle = { resolve, reject }));
  const end = (r: MeasureReply | Error): void => {
    if (settled) return;
    settled = true;
    if (r instanceof Error) settle.reject(r);
    else if (r.ok) settle.resolve(r.totals);
    else settle.reject(deserializeError(r.error));
  };
  w.on('message', (r: MeasureReply) => end(r));
  w.on('error', (e) => end(new BrickpostError('IO', `the thread measuring ${quote(root)} crashed: ${e.message}`, { cause: e })));
  w.on('exit', (code) => end(new BrickpostError('IO', `the thread measuring ${quote(root)} ended (exit code ${code}) before it finished`)));
  return {
    totals,
    async stop() {
      if (settled) return;
      end(new BrickpostError('CANCELLED', `measuring ${quote(root)} stopped`));
      await endWorker(w);
    },
  };
}
