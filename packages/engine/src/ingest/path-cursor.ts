/** Rows a PathCursor reads at a time. */
export const CURSOR_PAGE = 512;

/**
 * Point lookups by path into a table keyed by path, for a caller that asks
 * in nearly the table's order: the planner looks up each file of the new
 * tree in the old one, and both list the same tree in nearly the same
 * order. The table is read a page at a time in key order, and each lookup
 * moves forward over the rows before its path; a path behind the cursor
 * (asked out of order) is looked up exactly, by `get`. A hit is always an
 * equal path, and a miss is always `get`'s answer, so the order only
 * decides the cost: about a row read per lookup in order, against a
 * B-tree descent for each (300,000 lookups: 1.4 s as point queries).
 *
 * `page(after)` gives up to CURSOR_PAGE rows with paths after `after`
 * (null: from the first) in SQLite's BINARY order, which is the order of
 * code points (UTF-8 bytes); comparePaths is that order.
 */
export class PathCursor<R> {
  private rows: R[] = [];
  private i = 0;
  private done = false;

  /** `pathOf` gives a row's path (rows may be SQLite's raw arrays, which cost less to read than objects). */
  constructor(
    private readonly page: (after: string | null) => R[],
    private readonly get: (path: string) => R | undefined,
    private readonly pathOf: (row: R) => string,
  ) {}

  lookup(path: string): R | undefined {
    for (;;) {
      if (this.i === this.rows.length) {
        if (this.done) return this.get(path);
        const last = this.rows.length > 0 ? this.pathOf(this.rows[this.rows.length - 1]!) : null;
        this.rows = this.page(last);
        this.i = 0;
        if (this.rows.length < CURSOR_PAGE) this.done = true;
        if (this.rows.length === 0) return this.get(path);
      }
      const row = this.rows[this.i]!;
      const at = this.pathOf(row);
      if (at === path) {
        this.i++;
        return row;
      }
      // A row after the path: the path is not in the table, or was asked out of order.
      if (comparePaths(at, path) > 0) return this.get(path);
      this.i++;
    }
  }
}

/**
 * The order of two strings by code point, which is the order of their
 * UTF-8 bytes (SQLite's BINARY collation): JavaScript's `<` compares UTF-16
 * code units, which puts a character beyond U+FFFF (a surrogate pair)
 * before one of U+E000–U+FFFF.
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    let x = a.charCodeAt(k);
    let y = b.charCodeAt(k);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (D800–DFFF) above E000–FFFF; the order within each range is kept.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
