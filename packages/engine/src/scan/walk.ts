import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { compareFolded, foldKey, fromBytes, nameProblem, quote, RESERVED_ROOT_NAME, type EntryAttributes, type SpecialKind } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { fsPath } from '../io/fs-path.js';
import { AttributeReader } from './attributes.js';
import { listDirAsync, type EntryStat, type Listing } from './listing.js';
import type { Excluder } from './exclude.js';

/** A source entry in manifest order. */
export interface SourceEntry {
  type: 'dir' | 'file' | 'link' | 'hard' | 'special';
  /** Manifest path: relative, `/`-separated, an escaped string (names need not be UTF-8). */
  path: string;
  /** Absolute path on this machine, an escaped string: give it to fs calls through fsPath. */
  abs: string;
  /** Bytes of a file (its apparent size, holes included); 0 for other entries. */
  size: number;
  /** Permission bits as the source has them, setuid, setgid and sticky included (st_mode & 0o7777). */
  mode: number;
  mtimeNs: bigint;
  ino: bigint;
  ctimeNs: bigint;
  /** A file that may have holes: fewer 512-byte blocks allocated than its size needs. */
  sparse?: boolean;
  /** A symbolic link's target, as it holds it (an escaped string). */
  target?: string;
  /** A hard link: the path of the earlier entry naming the same file. */
  to?: string;
  /** A special file's kind, and a device's [major, minor]. */
  kind?: SpecialKind;
  dev?: [number, number];
  /** Extended attributes, ACLs and owner (empty when the walk was asked not to read them). */
  attrs: EntryAttributes;
}

/** Why an entry was not shipped (pack's summary counts them by kind). */
export type SkipKind = 'excluded' | 'cache' | 'unreadable' | 'vanished' | 'reserved' | 'name';

export interface SkippedEntry {
  path: string;
  reason: string;
  kind: SkipKind;
}

export interface WalkOptions {
  /** Entries left out on purpose (pack --exclude, --exclude-from). */
  exclude?: Excluder | undefined;
  /** Leave out folders tagged as caches (a CACHEDIR.TAG file with the standard signature). */
  excludeCaches?: boolean;
  /** Read extended attributes, ACLs and owner names (pack does; measuring does not need them). */
  attributes?: boolean;
  /** Attribute problems that do not stop the walk. */
  warn?: (message: string, path: string) => void;
}

/** The start of a CACHEDIR.TAG file (https://bford.info/cachedir/). */
const CACHEDIR_SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55';

/**
 * Walks a source tree depth-first in manifest order (siblings by fold key,
 * then bytes), yielding folders before their contents, and every kind of
 * entry: files, folders, symbolic links, special files, and each further
 * name of a file with several hard links as a `hard` entry naming the first
 * (first in manifest order). Names are taken as bytes. What is not shipped
 * is reported to `skip` with its reason: entries excluded on purpose, a
 * folder that cannot be read (its contents), an entry that vanished while
 * scanning, a top-level `.brickpost`. Memory holds one directory listing
 * per level, and one record per file whose other hard links are still to
 * come.
 * @throws BrickpostError NOT_FOUND, PERMISSION, IO (the source folder itself)
 */
export async function* walk(root: string, skip: (s: SkippedEntry) => void, opts: WalkOptions = {}): AsyncGenerator<SourceEntry> {
  const w = new Walker(skip, opts);
  yield* w.entries(root);
}

/** A folder being walked: its listing, its names in manifest order, and the next of them. */
interface Level {
  abs: string;
  rel: string;
  listing: Listing;
  order: Array<{ name: string; key: string; i: number }>;
  next: number;
  /** Names before this one (in `order`) were looked at for listing ahead. */
  ahead: number;
}

/** Entries stat'ed at once within one directory. */
const STAT_BATCH = 64;

/** Folders listed ahead of the walk at most, each on a thread of libuv's pool. */
const LISTED_AHEAD = 4;
/** A folder larger than this (its own st_size: about 30,000 names on ext4) is listed when the walk reaches it, not ahead. */
const AHEAD_MAX_SIZE = 1 << 20;

/**
 * A directory is listed, and its entries stat'ed, in one call (listing.ts):
 * no JavaScript object per name or stat, and no thread-pool round trip per
 * entry (one per entry cost ten times the CPU of the walk itself: 330-680
 * ms against 40 ms for the 5 436 entries of the 300 MiB benchmark
 * dataset). The call runs on libuv's pool, and the next few folders the
 * walk will enter (LISTED_AHEAD, in manifest order) are listed before it
 * gets there: on a cold disk the walk does not wait for each folder in
 * turn, and the JavaScript thread packs meanwhile. After each batch of
 * STAT_BATCH entries the walk lets the event loop turn.
 */
class Walker {
  private readonly attrs: AttributeReader | null;
  /** Files with more hard links to come: dev:ino → the first path and the links still expected. */
  private readonly links = new Map<string, { path: string; left: number }>();
  /** Folders being listed ahead of the walk, by absolute path (rejections are handled when the walk gets there). */
  private readonly ahead = new Map<string, Promise<Listing>>();

  constructor(
    private readonly skip: (s: SkippedEntry) => void,
    private readonly opts: WalkOptions,
  ) {
    this.attrs = opts.attributes === false ? null : new AttributeReader(opts.warn ?? (() => undefined));
  }

  /**
   * Every entry under `root`, depth first: one generator for the whole tree,
   * its folders on a stack of their listings (a generator per folder would
   * pass each entry up through one generator per level).
   */
  async *entries(root: string): AsyncGenerator<SourceEntry> {
    const stack: Level[] = [];
    const top = await this.list(root, '', true);
    if (top) stack.push(top);
    while (stack.length > 0) {
      const level = stack[stack.length - 1]!;
      const { abs, rel, listing, order } = level;
      const k = level.next++;
      if (k >= order.length) {
        stack.pop();
        continue;
      }
      if (k > 0 && k % STAT_BATCH === 0) await nextTurn();
      const { name, i } = order[k]!;
      const childAbs = join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      const st = listing.stat(i);
      if (st instanceof Error) {
        if (st.code === 'ENOENT') {
          this.skip({ path: childRel, reason: 'vanished while scanning', kind: 'vanished' });
          continue;
        }
        throw toEnvironmentError(st, 'cannot stat');
      }
      const isDir = st.kind === 'dir';
      if (this.opts.exclude?.excludes(childRel, isDir)) {
        this.skip({ path: childRel, reason: 'excluded', kind: 'excluded' });
        continue;
      }
      if (isDir && this.opts.excludeCaches && isCache(childAbs)) {
        this.ahead.delete(childAbs);
        this.skip({ path: childRel, reason: 'a cache folder (it holds a CACHEDIR.TAG)', kind: 'cache' });
        continue;
      }
      const entry = this.entry(st, childAbs, childRel);
      if (!entry) continue;
      yield entry;
      if (isDir) {
        const sub = await this.list(childAbs, childRel, false);
        if (sub) stack.push(sub);
        this.listAhead(stack);
      }
    }
  }

  /** Starts listing the next folders the walk will enter, deepest level first, until LISTED_AHEAD are under way. */
  private listAhead(stack: Level[]): void {
    for (let d = stack.length - 1; d >= 0 && this.ahead.size < LISTED_AHEAD; d--) {
      const level = stack[d]!;
      level.ahead = Math.max(level.ahead, level.next);
      while (level.ahead < level.order.length && this.ahead.size < LISTED_AHEAD) {
        const { name, i } = level.order[level.ahead++]!;
        const st = level.listing.stat(i);
        if (st instanceof Error || st.kind !== 'dir' || st.size > AHEAD_MAX_SIZE) continue;
        const rel = level.rel ? `${level.rel}/${name}` : name;
        if (this.opts.exclude?.excludes(rel, true)) continue;
        const abs = join(level.abs, name);
        const p = listDirAsync(abs, this.attrs !== null);
        p.catch(() => undefined);
        this.ahead.set(abs, p);
      }
    }
  }

  /** The folder `abs` listed, its names in manifest order; null when it is left out (reported to skip). @throws BrickpostError the top folder's failure, and any but EACCES, EPERM, ENOENT */
  private async list(abs: string, rel: string, top: boolean): Promise<Level | null> {
    let listing: Listing;
    try {
      const early = this.ahead.get(abs);
      this.ahead.delete(abs);
      listing = await (early ?? listDirAsync(abs, this.attrs !== null));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (top || (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOENT')) throw toEnvironmentError(e, `cannot read directory ${quote(abs)}`);
      this.skip({
        path: rel,
        reason: code === 'ENOENT' ? 'vanished while scanning' : 'its contents cannot be read (permission denied)',
        kind: code === 'ENOENT' ? 'vanished' : 'unreadable',
      });
      return null;
    }
    const order: Level['order'] = [];
    listing.names.forEach((name, i) => {
      const relName = rel ? `${rel}/${name}` : name;
      const key = foldKey(name);
      if (rel === '' && key === RESERVED_ROOT_NAME) {
        this.skip({ path: name, reason: 'reserved name (a brickpost destination state folder)', kind: 'reserved' });
        return;
      }
      const problem = nameProblem(name);
      if (problem) {
        this.skip({ path: relName, reason: problem, kind: 'name' });
        return;
      }
      order.push({ name, key, i });
    });
    order.sort((a, b) => compareFolded(a.key, a.name, b.key, b.name));
    return { abs, rel, listing, order, next: 0, ahead: 0 };
  }

  private entry(st: EntryStat, abs: string, path: string): SourceEntry | null {
    const base = { path, abs, size: 0, mode: st.mode, mtimeNs: st.mtimeNs, ino: st.ino, ctimeNs: st.ctimeNs };
    const attrs = (kind: 'dir' | 'file' | 'link' | 'special'): EntryAttributes => this.attrs?.read(abs, path, st.uid, st.gid, kind, st.xattrs) ?? {};
    if (st.kind === 'dir') return { type: 'dir', ...base, attrs: attrs('dir') };
    if (st.kind === 'file') {
      if (st.nlink > 1) {
        const key = st.identity;
        const first = this.links.get(key);
        if (first) {
          if (--first.left <= 0) this.links.delete(key);
          return { type: 'hard', ...base, to: first.path, attrs: {} };
        }
        this.links.set(key, { path, left: st.nlink - 1 });
      }
      return { type: 'file', ...base, size: st.size, ...(st.sparse ? { sparse: true } : {}), attrs: attrs('file') };
    }
    if (st.kind === 'link') {
      let target: string;
      try {
        target = fromBytes(readlinkSync(fsPath(abs), { encoding: 'buffer' }));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
          this.skip({ path, reason: 'vanished while scanning', kind: 'vanished' });
          return null;
        }
        throw toEnvironmentError(e, `cannot read symbolic link ${quote(abs)}`);
      }
      return { type: 'link', ...base, target, attrs: attrs('link') };
    }
    const kind = st.kind;
    const dev: [number, number] | undefined = kind === 'char' || kind === 'block' ? st.rdev : undefined;
    return { type: 'special', ...base, kind, ...(dev ? { dev } : {}), attrs: attrs('special') };
  }
}

/** Whether the folder `dir` holds a CACHEDIR.TAG with the standard signature. */
export function isCache(dir: string): boolean {
  try {
    return (
      readFileSync(fsPath(join(dir, 'CACHEDIR.TAG')))
        .subarray(0, CACHEDIR_SIGNATURE.length)
        .toString('latin1') === CACHEDIR_SIGNATURE
    );
  } catch {
    return false;
  }
}
