/**
 * Keys of a home.
 *
 * - identity: this home's age X25519 key pair (receiving) and minisign
 *   Ed25519 key pair (signing), stored as files in the real tools' formats.
 * - trust store: the minisign keys this home accepts (publishers of drives,
 *   subscribers' receipts), in the catalog, each with the party's age
 *   recipient when known; the home's own key is always among them.
 * - contact: pasted text holding a party's minisign key and age recipient.
 */
export * from './contact.js';
export * from './identity.js';
export * from './trust.js';
