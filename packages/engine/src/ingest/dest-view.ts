import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { foldKey, fromBytes, quote, RESERVED_ROOT_NAME } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { fsPath } from '../io/fs-path.js';
import type { Plan } from './apply-plan.js';
import type { DestCaps } from './dest-caps.js';
import { dbPath, pathFromDb, type DestDb } from './dest-db.js';
import { lstatOrNull } from './old-tree.js';
import { comparePaths } from './path-cursor.js';
import { STATE_DIR } from './state.js';

// How the planner sees DEST: its entries by their exact names, what the new tree lacks, and names it cannot hold apart.

/**
 * Anything DEST has that the new tree lacks is retired, whole folders at
 * once. DEST is read in the planned tree's key order (a folder's entries by
 * name, and a folder's own entries where its path followed by `/` sorts
 * among its siblings), so each lookup is the cursor's next row.
 */
export function sweep(dest: string, db: DestDb, retire: (p: string) => void): void {
  const planned = db.scratch.newCursor();
  const visit = (rel: string): void => {
    // Each entry at its key, and each folder's tree at its key and `/`, after its own entry.
    const steps: Array<{ key: string; p: string; dir: boolean; tree: boolean }> = [];
    try {
      for (const d of readdirSync(fsPath(rel ? join(dest, rel) : dest), { withFileTypes: true, encoding: 'buffer' })) {
        const name = fromBytes(d.name);
        if (!rel && name === STATE_DIR) continue;
        const p = rel ? `${rel}/${name}` : name;
        const key = dbPath(p);
        const dir = d.isDirectory();
        steps.push({ key, p, dir, tree: false });
        if (dir) steps.push({ key: `${key}/`, p, dir, tree: true });
      }
    } catch (e) {
      throw toEnvironmentError(e, `cannot list ${quote(rel || dest)}`);
    }
    steps.sort((a, b) => comparePaths(a.key, b.key));
    const kept = new Set<string>();
    for (const s of steps) {
      if (s.tree) {
        if (kept.has(s.p)) visit(s.p);
        continue;
      }
      const t = planned.lookup(s.key);
      if (t === undefined) retire(s.p);
      else if (t.type === 'dir' && t.action === 'keep' && s.dir) kept.add(s.p);
    }
  };
  visit('');
}

/** The groups of names DEST cannot hold apart (new.fkey is set only on such a destination). */
export function collisions(db: DestDb, plan: Plan): void {
  for (const g of db.scratch.collisionGroups()) {
    plan.collisionCount++;
    if (plan.collisions.length >= 100) continue;
    const parent = pathFromDb(g.parent);
    plan.collisions.push({ parent, names: db.scratch.collisionMembers(g.parent, g.fkey).map((p) => pathFromDb(p).slice(parent ? parent.length + 1 : 0)) });
  }
}

/**
 * lstat of DEST's entries by their exact names. On a file system that folds
 * case or normalisation, lstat of `readme` finds `README`; there an entry
 * counts only when its folder lists it under exactly that name (the last
 * few folder listings are kept).
 */
export class ExactNames {
  private readonly listings = new Map<string, Set<string>>();

  constructor(
    private readonly dest: string,
    private readonly caps: DestCaps,
  ) {}

  lstat(p: string): ReturnType<typeof lstatOrNull> {
    const st = lstatOrNull(join(this.dest, p));
    if (!st || (!this.caps.caseInsensitive && !this.caps.normalizationInsensitive)) return st;
    const slash = p.lastIndexOf('/');
    return this.listing(slash < 0 ? '' : p.slice(0, slash)).has(p.slice(slash + 1)) ? st : null;
  }

  private listing(folder: string): Set<string> {
    let names = this.listings.get(folder);
    if (!names) {
      names = new Set(readdirSync(fsPath(folder ? join(this.dest, folder) : this.dest), { encoding: 'buffer' }).map(fromBytes));
      if (this.listings.size >= 64) this.listings.delete(this.listings.keys().next().value!);
      this.listings.set(folder, names);
    }
    return names;
  }
}

/**
 * Whether a symbolic link at `p` with `target` points outside DEST, read
 * lexically from the link's folder (as the issue of links asks, never by
 * following other links): an absolute target, one that climbs above DEST
 * with `..`, or one that leads into DEST's state folder.
 */
export function leavesDest(p: string, target: string): boolean {
  if (target.startsWith('/')) return true;
  const at = p.includes('/') ? dirname(p).split('/') : [];
  for (const c of target.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..') {
      if (at.length === 0) return true;
      at.pop();
    } else at.push(c);
  }
  return at.length > 0 && foldKey(at[0]!) === RESERVED_ROOT_NAME;
}
