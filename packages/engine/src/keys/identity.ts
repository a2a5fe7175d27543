import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { age, BrickpostError, minisign, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';

/**
 * This home's identity: an age X25519 key pair (to receive shipments) and an
 * Ed25519 key pair in minisign's formats (to sign them). Secret files are
 * written 0600 in the formats of age-keygen and `minisign -G -W`, so the real
 * tools use them as they are.
 */
export const IDENTITY_FILES = {
  age: 'age-identity.txt',
  minisignSecret: 'minisign.key',
  minisignPublic: 'minisign.pub',
} as const;

export interface Identity {
  name: string;
  ageIdentity: string;
  /** Parsed identities of the identity file, for decrypting. */
  ageIdentities: age.Identity[];
  recipient: string;
  signingKey: minisign.SigningKey;
  keyId: string;
  minisignPublicKey: string;
  identityFile: string;
  minisignPublicKeyFile: string;
}

/** True when the home has an identity. */
export function hasIdentity(home: string): boolean {
  return existsSync(join(home, IDENTITY_FILES.age)) && existsSync(join(home, IDENTITY_FILES.minisignSecret));
}

/**
 * Creates the identity files.
 * @throws BrickpostError IDENTITY_EXISTS unless force.
 */
export function createIdentity(home: string, name: string, force: boolean): Identity {
  if (!force && (existsSync(join(home, IDENTITY_FILES.age)) || existsSync(join(home, IDENTITY_FILES.minisignSecret)))) {
    throw new BrickpostError('IDENTITY_EXISTS', `an identity already exists in ${quote(home)}`, {
      hint: 'use --force to replace it (shipments encrypted to the old key can then no longer be read with this home)',
    });
  }
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const a = age.generateX25519Identity();
  const key = minisign.generateSigningKey();
  writeSecret(join(home, IDENTITY_FILES.age), age.formatIdentityFile(a.identity, new Date()));
  writeSecret(join(home, IDENTITY_FILES.minisignSecret), minisign.formatSecretKeyFile(key));
  writeFileSync(join(home, IDENTITY_FILES.minisignPublic), minisign.formatPublicKeyFile(key));
  return loadIdentity(home, name);
}

/** A key file's text. @throws BrickpostError PERMISSION, IO… naming the file */
function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw toEnvironmentError(e, `cannot read key file ${quote(file)}`, { on: 'home', path: file });
  }
}

/**
 * Reads the identity files.
 * @throws BrickpostError NO_IDENTITY, BAD_KEY; PERMISSION, IO… when a key file cannot be read
 */
export function loadIdentity(home: string, name: string): Identity {
  if (!hasIdentity(home)) {
    throw new BrickpostError('NO_IDENTITY', `no identity in ${quote(home)}`, { hint: "run 'brickpost keygen' first, or pass --home" });
  }
  const identityFile = join(home, IDENTITY_FILES.age);
  const text = readKeyFile(identityFile);
  const ageIdentities = age.parseIdentityFile(text);
  const ageIdentity = text
    .split('\n')
    .find((l) => l.startsWith('AGE-SECRET-KEY-1'))
    ?.trim();
  if (!ageIdentity) throw new BrickpostError('BAD_KEY', `no X25519 identity in ${quote(identityFile)}`);
  const signingKey = minisign.parseSecretKeyFile(readKeyFile(join(home, IDENTITY_FILES.minisignSecret)));
  return {
    name,
    ageIdentity,
    ageIdentities,
    recipient: age.identityToRecipient(ageIdentity),
    signingKey,
    keyId: minisign.keyIdHex(signingKey.keyId),
    minisignPublicKey: minisign.publicKeyString(signingKey),
    identityFile,
    minisignPublicKeyFile: join(home, IDENTITY_FILES.minisignPublic),
  };
}

function writeSecret(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}
