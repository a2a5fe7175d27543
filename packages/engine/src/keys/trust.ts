import { BrickpostError, minisign, quote } from '@brickpost/manifest';
import type { TrustedKey } from '../api/index.js';
import type { Catalog } from '../catalog/index.js';
import {
  allTrust,
  deleteTrust,
  setTrustRecipientIfNone,
  trustByKeyId,
  trustByNameOrKeyId,
  trustKeyIdNamed,
  upsertTrust,
  type TrustRow,
} from '../catalog/trust.js';
import { checkRecipient, parseContact } from './contact.js';

/**
 * The trust store: minisign public keys whose shipments (and receipts) this
 * home accepts, each under a unique local name, and the party's age
 * recipient when known, so packs can be encrypted to them by name. The
 * home's own key is entered automatically (self = 1).
 */

function toKey(r: TrustRow): TrustedKey {
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
  const taken = trustKeyIdNamed(catalog, chosen);
  if (taken !== undefined && taken !== pk.keyIdHex) {
    throw new BrickpostError('USAGE', `the name ${quote(chosen)} is already used by key ${taken}`, { hint: 'choose another --name' });
  }
  upsertTrust(catalog, { key_id: pk.keyIdHex, name: chosen, public_key: pk.line, added_at: new Date().toISOString(), self: fields.self === true, recipient });
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
  return setTrustRecipientIfNone(catalog, keyId.toUpperCase(), recipient);
}

/**
 * The trusted key named `nameOrKeyId` (its local name, or its key id in any
 * case), or null.
 */
export function findTrust(catalog: Catalog, nameOrKeyId: string): TrustedKey | null {
  const r = trustByNameOrKeyId(catalog, nameOrKeyId, nameOrKeyId.toUpperCase());
  return r ? toKey(r) : null;
}

/** The name a contact text suggests, when allowed and free; else null. */
function suggested(catalog: Catalog, name: string | null, keyId: string): string | null {
  if (name === null || !NAME.test(name)) return null;
  const taken = trustKeyIdNamed(catalog, name);
  return taken === undefined || taken === keyId ? name : null;
}

/** All trusted keys, own key first. */
export function listTrust(catalog: Catalog): TrustedKey[] {
  return allTrust(catalog).map(toKey);
}

/** One trusted key by key id (16 hex digits), or null. */
export function getTrust(catalog: Catalog, keyId: string): TrustedKey | null {
  const r = trustByKeyId(catalog, keyId.toUpperCase());
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
  deleteTrust(catalog, k.keyId);
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
  const taken = trustKeyIdNamed(catalog, clean);
  return taken === undefined || taken === keyId ? clean : `${clean}-${keyId.slice(0, 6).toLowerCase()}`;
}
