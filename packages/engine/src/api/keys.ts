/**
 * The engine API's types for this home's identity and its trust store.
 * Types only.
 */

export interface WhoAmI {
  name: string;
  /** age X25519 recipient, `age1…`. */
  recipient: string;
  /** minisign public key line, `RW…`. */
  minisignPublicKey: string;
  /** minisign key id, 16 upper-case hex digits. */
  keyId: string;
  identityFile: string;
  minisignPublicKeyFile: string;
  home: string;
}

export interface TrustedKey {
  name: string;
  keyId: string;
  minisignPublicKey: string;
  /** The party's age recipient (`age1…`), to pack for them by name; null when not known. */
  recipient: string | null;
  addedAt: string;
  /** True for this home's own key. */
  self: boolean;
}
