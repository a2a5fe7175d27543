/**
 * Square matrices over GF(2^8), as arrays of byte rows: the generator rows
 * of the code and the inverse that reconstruction needs.
 */
import { gfInv, mulAddBytes } from './gf.js';

/**
 * The inverse of the square matrix `a` (left unchanged), by Gauss-Jordan
 * elimination. Rows that are already unit vectors (the data shares a
 * reconstruction has) cost almost nothing: only nonzero entries are
 * eliminated.
 * @throws RangeError when `a` is singular.
 */
export function invert(a: Uint8Array[]): Uint8Array[] {
  const n = a.length;
  const m = a.map((row) => Uint8Array.from(row));
  const inv = a.map((_, r) => {
    const row = new Uint8Array(n);
    row[r] = 1;
    return row;
  });
  for (let c = 0; c < n; c++) {
    let p = c;
    while (p < n && m[p]![c] === 0) p++;
    if (p === n) throw new RangeError(`matrix is singular (no pivot in column ${c})`);
    const pivot = m[p]!;
    const pivotInv = inv[p]!;
    [m[c], m[p]] = [pivot, m[c]!];
    [inv[c], inv[p]] = [pivotInv, inv[c]!];
    const f = gfInv(pivot[c]!);
    if (f !== 1) {
      scale(pivot, f);
      scale(pivotInv, f);
    }
    for (let r = 0; r < n; r++) {
      const row = m[r]!;
      const g = row[c]!;
      if (r === c || g === 0) continue;
      mulAddBytes(row, pivot, g, n);
      mulAddBytes(inv[r]!, pivotInv, g, n);
    }
  }
  return inv;
}

/** row = f · row, in place. */
function scale(row: Uint8Array, f: number): void {
  const t = new Uint8Array(row.length);
  mulAddBytes(t, row, f, row.length);
  row.set(t);
}
