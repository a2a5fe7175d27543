import type { age, minisign } from '@brickpost/manifest';
import { Engine } from '../engine.js';
import { loadIdentity } from '../keys/index.js';

/** What a crafted shipment needs of one party: its keys for signing and receiving. */
export interface PartyKeys {
  /** minisign key that signs shipments. */
  signingKey: minisign.SigningKey;
  /** minisign key id, 16 upper-case hex digits. */
  keyId: string;
  /** minisign public key line, `RW…`. */
  minisignPublicKey: string;
  /** age recipient, `age1…`. */
  recipient: string;
  /** Parsed age identities, for decrypting what was crafted. */
  ageIdentities: age.Identity[];
}

/**
 * The keys of a home created by `Engine.keygen` (or `brickpost keygen`).
 * @throws BrickpostError NO_IDENTITY, BAD_KEY
 */
export function partyKeys(home: string): PartyKeys {
  const id = loadIdentity(home, 'testkit');
  return {
    signingKey: id.signingKey,
    keyId: id.keyId,
    minisignPublicKey: id.minisignPublicKey,
    recipient: id.recipient,
    ageIdentities: id.ageIdentities,
  };
}

/**
 * A new home at `home` with a fresh identity named after its folder, and its keys.
 * @throws BrickpostError IDENTITY_EXISTS, IO
 */
export function newParty(home: string): PartyKeys {
  const e = Engine.open({ home });
  try {
    e.keygen({ name: home.split('/').pop()! });
  } finally {
    e.close();
  }
  return partyKeys(home);
}
