/**
 * The catalog's `meta` table: this home's settings and small records as
 * key and JSON-or-text value (the display name under `name`; measured
 * drive rates under their own prefix, plan/drive-rates.ts).
 */
import type { Catalog } from './catalog.js';

/** The value under `key`, if any. */
export function metaValue(catalog: Catalog, key: string): string | undefined {
  return catalog.db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get(key);
}

/** Sets the value under `key`. */
export function setMeta(catalog: Catalog, key: string, value: string): void {
  catalog.db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** The keys and values whose key starts with `prefix`, by key descending. */
export function metaWithPrefix(catalog: Catalog, prefix: string): Array<{ key: string; value: string }> {
  return catalog.db
    .prepare<[number, string], { key: string; value: string }>('SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key DESC')
    .all(prefix.length, prefix);
}

/** Deletes the keys starting with `prefix` but the newest `keep` (by key). */
export function keepNewestWithPrefix(catalog: Catalog, prefix: string, keep: number): void {
  catalog.db
    .prepare<[number, string, number, string, number]>(
      'DELETE FROM meta WHERE substr(key, 1, ?) = ? AND key NOT IN (SELECT key FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key DESC LIMIT ?)',
    )
    .run(prefix.length, prefix, prefix.length, prefix, keep);
}
