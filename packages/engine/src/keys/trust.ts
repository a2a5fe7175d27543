import { BrickpostError, minisign, quote } from '@brickpost/manifest';
import type { TrustedKey } from '../api/index.js';
import type { Catalog } from '../catalog/index.js';
import { checkRecipient, parseContact } from './contact.js';

/**
 * The trust store: minisign public keys whose shipments (and receipts) this
 * home accepts, each under a unique local name, and the party's age
 * recipient when known, so packs can be encrypted to them by name. The
 * home's own key is entered automatically (self = 1).
 */

interface Row {
  key_id: string;
  name: string;
  public_key: string;
  added_at: string;
  self: number;
  recipient: string | null;
}

function toKey(r: Row): TrustedKey {
  return { name: r.name, keyId: r.key_id, minisignPublicKey: r.public_key, recipient: r.recipient, addedAt: r.added_at, self: r.self === 1 };
}

const NAME = /^[\p{L}\p{N}._@+-][\p{L}\p{N} ._@+-]{0,63}$/u;

/** What addTrust sets besides the key. */
export interface TrustFields {
  /** The local name; default: the entry's name, else the contact's, else `key-` and the key id's start. */
  name?: string | undefined;
  /** The party's age recipient; default: the contact's, else the entry's. */
  recipient?: string | undefined;
  self?: boolean;
}

/**
 * Adds a trusted key given as contact text (an `RW…` line, a .pub file, or
 * text holding the key and an `age1…` recipient, see contact.ts), or
 * updates the entry of a key trusted already: a name or recipient given
 * replaces the one recorded, one left out keeps it.
 * @throws BrickpostError BAD_KEY (no key, malformed recipient, recipient given twice differently), USAGE (name not allowed or taken by another key)
 */
export function addTrust(catalog: Catalog, keyText: string, fields: TrustFields = {}): TrustedKey {
  const contact = parseContact(keyText);
  const pk = minisign.parsePublicKey(contact.publicKey);
  const recipient = fields.recipient === undefined ? contact.recipient : checkRecipient(fields.recipient);
  if (fields.recipient !== undefined && contact.recipient !== null && contact.recipient !== fields.recipient) {
    throw new BrickpostError('BAD_KEY', `the pasted text holds recipient ${quote(contact.recipient, 24)} but ${quote(fields.recipient, 24)} was given`, {
      hint: 'give one recipient: leave out --recipient, or paste the key alone',
    });
  }
  const existing = getTrust(catalog, pk.keyIdHex);
  const chosen = fields.name ?? existing?.name ?? suggested(catalog, contact.name, pk.keyIdHex) ?? `key-${pk.keyIdHex.slice(0, 8).toLowerCase()}`;
  if (!NAME.test(chosen)) {
    throw new BrickpostError('USAGE', `trust name ${quote(chosen)} is not allowed`, { hint: 'use letters, digits, space, . _ @ + - (at most 64)' });
  }
  const taken = catalog.db.prepare('SELECT key_id FROM trust WHERE name = ?').get(chosen) as { key_id: string } | undefined;
  if (taken && taken.key_id !== pk.keyIdHex) {
    throw new BrickpostError('USAGE', `the name ${quote(chosen)} is already used by key ${taken.key_id}`, { hint: 'choose another --name' });
  }
  catalog.db
    .prepare(
      `INSERT INTO trust (key_id, name, public_key, added_at, self, recipient) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_id) DO UPDATE SET name = excluded.name, public_key = excluded.public_key, self = max(self, excluded.self),
         recipient = coalesce(excluded.recipient, recipient)`,
    )
    .run(pk.keyIdHex, chosen, pk.line, new Date().toISOString(), fields.self ? 1 : 0, recipient);
  return getTrust(catalog, pk.keyIdHex)!;
}

/**
 * Records the recipient of a trusted key that has none yet (a receipt signed
 * by that key named it; or the home's own, from its identity). A recipient
 * already recorded is kept. Returns true when it was recorded.
 */
export function fillRecipient(catalog: Catalog, keyId: string, recipient: string): boolean {
  try {
    checkRecipient(recipient);
  } catch {
    return false;
  }
  return catalog.db.prepare('UPDATE trust SET recipient = ? WHERE key_id = ? AND recipient IS NULL').run(recipient, keyId.toUpperCase()).changes > 0;
}

/**
 * The trusted key named `nameOrKeyId` (its local name, or its key id in any
 * case), or null.
 */
export function findTrust(catalog: Catalog, nameOrKeyId: string): TrustedKey | null {
  const r = catalog.db.prepare('SELECT * FROM trust WHERE name = ? OR key_id = ?').get(nameOrKeyId, nameOrKeyId.toUpperCase()) as Row | undefined;
  return r ? toKey(r) : null;
}

/** The name a contact text suggests, when allowed and free; else null. */
function suggested(catalog: Catalog, name: string | null, keyId: string): string | null {
  if (name === null || !NAME.test(name)) return null;
  const taken = catalog.db.prepare('SELECT key_id FROM trust WHERE name = ?').get(name) as { key_id: string } | undefined;
  return !taken || taken.key_id === keyId ? name : null;
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
  const k = findTrust(catalog, nameOrKeyId);
  if (!k) throw new BrickpostError('NOT_FOUND', `no trusted key named ${quote(nameOrKeyId)}`, { hint: "see 'brickpost trust list'" });
  if (k.self) throw new BrickpostError('USAGE', `${quote(k.name)} is this home's own key and cannot be removed`);
  catalog.db.prepare('DELETE FROM trust WHERE key_id = ?').run(k.keyId);
  return k;
}

/** Trusted keys in the form the signature verifier takes. */
export function trustedVerifiers(catalog: Catalog): Array<{ keyId: Buffer; publicKey: Buffer; name: string }> {
  return listTrust(catalog).map((k) => {
    const pk = minisign.parsePublicKey(k.minisignPublicKey);
    return { keyId: pk.keyId, publicKey: pk.publicKey, name: k.name };
  });
}

/**
 * The trust store name of this home's own key: its display name made a
 * valid name, with the key id's start added when another key has it.
 */
export function selfTrustName(catalog: Catalog, name: string, keyId: string): string {
  const clean = name.replace(/[^\p{L}\p{N} ._@+-]/gu, '-').slice(0, 48) || 'me';
  const taken = catalog.db.prepare('SELECT key_id FROM trust WHERE name = ?').get(clean) as { key_id: string } | undefined;
  return !taken || taken.key_id === keyId ? clean : `${clean}-${keyId.slice(0, 6).toLowerCase()}`;
}
