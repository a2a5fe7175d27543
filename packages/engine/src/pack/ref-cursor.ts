import type { TreeQueries, TreeStatRow } from '../catalog/trees.js';

/** Rows read ahead at most, and at least after the window moved. */
const MAX_AHEAD = 512;
const MIN_AHEAD = 16;
/** Lookups made without reading ahead after the window went astray, doubling up to this many while it keeps doing so. */
const MAX_PAUSE = 1024;

/** A row the cursor found, and the path of the row right before it in the tree when the window showed it (else null). */
export interface FoundRow {
  row: TreeStatRow;
  prev: string | null;
}

/**
 * The reference tree (stat cache) read in path order, a window of rows at
 * a time. A pack walks the source in manifest order, which is the path
 * order of the catalog's rows wherever names do not differ in case or sort
 * before `/` (`a.b` before `a/…`): while the source changed little, the
 * file looked up is the row at the head of the window, and costs no query
 * of its own.
 *
 * The window only saves queries; it decides nothing. A path that is not at
 * the head (a file added, rows of removed files before it, or the orders
 * differing there) is looked up by its path, and the window moves on to the
 * rows after the one found. When the window keeps missing, reading ahead
 * pauses for longer and longer runs of lookups, so it never costs much more
 * than a lookup per file. Memory holds one window.
 */
export class ReferenceCursor {
  private rows: TreeStatRow[] = [];
  private at = 0;
  /** The path of the row before the window's first (null: the window starts at the tree's first row). */
  private from: string | null = null;
  /** The path the next window starts after (null: the tree's first row); undefined once the tree is read to its end. */
  private next: string | null | undefined = null;
  private streak = 0;
  private pause = 0;
  private backoff = 1;

  constructor(
    private readonly q: TreeQueries,
    private readonly tree: string,
  ) {}

  /** The row of the file at `path` (manifest field form), or undefined when the tree has none. */
  find(path: string): FoundRow | undefined {
    let missed = false;
    if (this.pause > 0) this.pause--;
    else {
      const head = this.head();
      if (head?.path === path) {
        const prev = this.at > 0 ? this.rows[this.at - 1]!.path : this.from;
        this.at++;
        this.streak++;
        this.backoff = 1;
        return { row: head, prev };
      }
      missed = head !== undefined;
    }
    const row = this.q.statRowOf(this.tree, path);
    // A file added leaves the window where it is; a row found elsewhere means the window went astray.
    if (missed && row) {
      this.pause = this.backoff;
      this.backoff = Math.min(this.backoff * 2, MAX_PAUSE);
    }
    this.streak = 0;
    if (row) this.moveAfter(row.path);
    return row ? { row, prev: null } : undefined;
  }

  private head(): TreeStatRow | undefined {
    if (this.at < this.rows.length) return this.rows[this.at];
    if (this.next === undefined) return undefined;
    const limit = Math.min(MAX_AHEAD, Math.max(MIN_AHEAD, this.streak));
    this.from = this.next;
    this.rows = this.q.statRowsAfter(this.tree, this.from, limit);
    this.at = 0;
    this.next = this.rows.length < limit ? undefined : this.rows[this.rows.length - 1]!.path;
    return this.rows[0];
  }

  /** The window starts after the row at `path`: the next file walked is most likely the next row. */
  private moveAfter(path: string): void {
    const i = this.rows.findIndex((x) => x.path === path);
    if (i >= 0) this.at = i + 1;
    else {
      this.rows = [];
      this.at = 0;
      this.next = path;
    }
  }
}
