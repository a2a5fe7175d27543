import { BrickpostError, minisign, quote } from '@brickpost/manifest';
import type { TrustedKey } from '../api.js';
import type { Catalog } from '../catalog/index.js';

/**
 * The trust store: minisign public keys whose shipments this home accepts,
 * each under a unique local name. The home's own key is entered
 * automatically (self = 1).
 */

interface Row {
  key_id: string;
  name: string;
  public_key: string;
  added_at: string;
  self: number;
}

function toKey(r: Row): TrustedKey {
  return { name: r.name, keyId: r.key_id, minisignPublicKey: r.public_key, addedAt: r.added_at, self: r.self === 1 };
}

/**
 * Adds (or renames) a trusted key given as an `RW…` line or a .pub file's text.
 * @throws BrickpostError BAD_KEY, USAGE (name taken by another key)
 */
export function addTrust(catalog: Catalog, keyText: string, name: string | undefined, self = false): TrustedKey {
  const pk = minisign.parsePublicKey(keyText);
  const chosen = name ?? `key-${pk.keyIdHex.slice(0, 8).toLowerCase()}`;
  if (!/^[\p{L}\p{N}._@+-][\p{L}\p{N} ._@+-]{0,63}$/u.test(chosen)) {
    throw new BrickpostError('USAGE', `trust name ${quote(chosen)} is not allowed`, { hint: 'use letters, digits, space, . _ @ + - (at most 64)' });
  }
  const taken = catalog.db.prepare('SELECT key_id FROM trust WHERE name = ?').get(chosen) as { key_id: string } | undefined;
  if (taken && taken.key_id !== pk.keyIdHex) {
    throw new BrickpostError('USAGE', `the name ${quote(chosen)} is already used by key ${taken.key_id}`, { hint: 'choose another --name' });
  }
  catalog.db
    .prepare(
      `INSERT INTO trust (key_id, name, public_key, added_at, self) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_id) DO UPDATE SET name = excluded.name, public_key = excluded.public_key, self = max(self, excluded.self)`,
    )
    .run(pk.keyIdHex, chosen, pk.line, new Date().toISOString(), self ? 1 : 0);
  return getTrust(catalog, pk.keyIdHex)!;
}

/** All trusted keys, own key first. */
export function listTrust(catalog: Catalog): TrustedKey[] {
  return (catalog.db.prepare('SELECT * FROM trust ORDER BY self DESC, name').all() as Row[]).map(toKey);
}

/** One trusted key by key id (16 hex digits), or null. */
export function getTrust(catalog: Catalog, keyId: string): TrustedKey | null {
  const r = catalog.db.prepare('SELECT * FROM trust WHERE key_id = ?').get(keyId.toUpperCase()) as Row | undefined;
  return r ? toKey(r) : null;
}

/**
 * Removes a trusted key by name or key id.
 * @throws BrickpostError NOT_FOUND, USAGE (own key)
 */
export function removeTrust(catalog: Catalog, nameOrKeyId: string): TrustedKey {
  const r = catalog.db.prepare('SELECT * FROM trust WHERE name = ? OR key_id = ?').get(nameOrKeyId, nameOrKeyId.toUpperCase()) as Row | undefined;
  if (!r) throw new BrickpostError('NOT_FOUND', `no trusted key named ${quote(nameOrKeyId)}`, { hint: "see 'brickpost trust list'" });
  if (r.self === 1) throw new BrickpostError('USAGE', `${quote(r.name)} is this home's own key and cannot be removed`);
  catalog.db.prepare('DELETE FROM trust WHERE key_id = ?').run(r.key_id);
  return toKey(r);
}

/** Trusted keys in the form the signature verifier takes. */
export function trustedVerifiers(catalog: Catalog): Array<{ keyId: Buffer; publicKey: Buffer; name: string }> {
  return listTrust(catalog).map((k) => {
    const pk = minisign.parsePublicKey(k.minisignPublicKey);
    return { keyId: pk.keyId, publicKey: pk.publicKey, name: k.name };
  });
}
