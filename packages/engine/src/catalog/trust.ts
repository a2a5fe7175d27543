/**
 * The catalog's `trust` table: minisign public keys this home accepts, by
 * key id (16 upper-case hex digits), each under a unique local name, with
 * the party's age recipient when known; `self` marks this home's own key.
 * keys/trust.ts decides what goes in; these are its queries.
 */
import type { Catalog } from './catalog.js';

/** A row of `trust`. */
export interface TrustRow {
  key_id: string;
  name: string;
  public_key: string;
  added_at: string;
  self: number;
  recipient: string | null;
}

/** The key id that holds local name `name`, if any. */
export function trustKeyIdNamed(catalog: Catalog, name: string): string | undefined {
  return catalog.db.prepare<[string], string>('SELECT key_id FROM trust WHERE name = ?').pluck().get(name);
}

/** Inserts a key, or updates it: name and public key replaced, `self` only ever set, a null recipient keeps the one recorded. */
export function upsertTrust(catalog: Catalog, r: Omit<TrustRow, 'self'> & { self: boolean }): void {
  catalog.db
    .prepare<[string, string, string, string, number, string | null]>(
      `INSERT INTO trust (key_id, name, public_key, added_at, self, recipient) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_id) DO UPDATE SET name = excluded.name, public_key = excluded.public_key, self = max(self, excluded.self),
         recipient = coalesce(excluded.recipient, recipient)`,
    )
    .run(r.key_id, r.name, r.public_key, r.added_at, r.self ? 1 : 0, r.recipient);
}

/** Sets the recipient of key `keyId` when it has none; true when it was set. */
export function setTrustRecipientIfNone(catalog: Catalog, keyId: string, recipient: string): boolean {
  return catalog.db.prepare<[string, string]>('UPDATE trust SET recipient = ? WHERE key_id = ? AND recipient IS NULL').run(recipient, keyId).changes > 0;
}

/** The key whose local name is `name` or whose key id is `keyId`. */
export function trustByNameOrKeyId(catalog: Catalog, name: string, keyId: string): TrustRow | undefined {
  return catalog.db.prepare<[string, string], TrustRow>('SELECT * FROM trust WHERE name = ? OR key_id = ?').get(name, keyId);
}

/** The key of key id `keyId`. */
export function trustByKeyId(catalog: Catalog, keyId: string): TrustRow | undefined {
  return catalog.db.prepare<[string], TrustRow>('SELECT * FROM trust WHERE key_id = ?').get(keyId);
}

/** Every key, own key first, then by name. */
export function allTrust(catalog: Catalog): TrustRow[] {
  return catalog.db.prepare<[], TrustRow>('SELECT * FROM trust ORDER BY self DESC, name').all();
}

/** Removes key `keyId`. */
export function deleteTrust(catalog: Catalog, keyId: string): void {
  catalog.db.prepare<[string]>('DELETE FROM trust WHERE key_id = ?').run(keyId);
}

/** Marks the own key as no longer own, and forgets its recipient (its secret key was replaced). */
export function retireSelfKey(catalog: Catalog): void {
  catalog.db.prepare('UPDATE trust SET self = 0, recipient = NULL WHERE self = 1').run();
}
