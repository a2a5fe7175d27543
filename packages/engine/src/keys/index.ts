/**
 * Keys of a home.
 *
 * - identity: this home's age X25519 key pair (receiving) and minisign
 *   Ed25519 key pair (signing), stored as files in the real tools' formats.
 * - trust store: the publishers' minisign keys this home accepts, in the
 *   catalog; the home's own key is always among them.
 */
export * from './identity.js';
export * from './trust.js';
