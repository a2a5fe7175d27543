import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  bagit,
  BrickpostError,
  isBrickpostError,
  MANIFEST_PATH,
  minisign,
  packPath,
  parseShipmentInfo,
  quote,
  trustedComment,
  type ShipmentInfo,
} from '@brickpost/manifest';
import type { VerifyProblem } from '../api.js';
import { readLimited } from './read-limited.js';
import { SIGNATURE_FILE, TAG_MANIFEST } from './seal.js';

const MAX_TAG_FILE = 1 << 20;
const MAX_PAYLOAD_MANIFEST = 64 << 20;
/** Payload files a bag may list: the manifest and up to a million packs (256 TiB). */
const MAX_PAYLOAD_ENTRIES = 1_000_001;
const REQUIRED_TAGS = ['bagit.txt', 'bag-info.txt', 'manifest-sha256.txt'];

/** A shipment whose tag files have been read and checked. */
export interface OpenedShipment {
  id: string;
  dir: string;
  info: ShipmentInfo;
  /** Payload file (bag-relative path) → SHA-256 hex, from the signed payload manifest. */
  payload: Map<string, string>;
  signature: 'valid' | 'invalid' | 'missing';
  signer: { keyId: string; name: string | null; trusted: boolean };
  /** Authenticity and tag-file problems found (lenient mode only; otherwise thrown). */
  problems: VerifyProblem[];
}

/** What keyless verification learns even when opening fails part way. */
export interface LenientFindings {
  problems: VerifyProblem[];
  signature: 'valid' | 'invalid' | 'missing';
  signer: { keyId: string; name: string | null; trusted: boolean };
}

export interface TrustedSigner {
  keyId: Buffer;
  publicKey: Buffer;
  name: string;
}

/**
 * Opens a shipment bag: checks the publisher's signature of the tag manifest
 * against the trusted keys, the tag manifest's digests of bagit.txt,
 * bag-info.txt and the payload manifest, and that the payload manifest lists
 * exactly the manifest and the packs bag-info declares. Nothing else on the
 * drive is read. In strict mode the first problem is thrown; in lenient mode
 * (keyless verify) signature problems are collected and checking goes on, so
 * the report can say whether the data is intact even when it is not trusted.
 * @throws BrickpostError UNSIGNED, UNTRUSTED_PUBLISHER, SIGNATURE_INVALID, FILE_MISSING, FIXITY_MISMATCH, MALFORMED, LIMIT_EXCEEDED
 */
export async function openShipment(id: string, dir: string, trusted: TrustedSigner[], lenient?: LenientFindings): Promise<OpenedShipment> {
  const problems: VerifyProblem[] = lenient?.problems ?? [];
  const soft = (e: BrickpostError): void => {
    if (!lenient) throw e;
    problems.push({ code: e.code, message: e.message, ...(e.path ? { path: e.path } : {}) });
  };

  const tagManifestBytes = await readLimited(join(dir, TAG_MANIFEST), MAX_TAG_FILE, 'tag manifest');
  let signature: OpenedShipment['signature'] = 'missing';
  let signer: OpenedShipment['signer'] = { keyId: '', name: null, trusted: false };
  let signedComment: string | null = null;
  try {
    const sigText = await readLimited(join(dir, SIGNATURE_FILE), minisign.MAX_SIGNATURE_FILE_BYTES, 'signature');
    const parsed = minisign.parseSignature(sigText);
    const known = trusted.find((k) => k.keyId.equals(parsed.keyId));
    signer = { keyId: parsed.keyIdHex, name: known?.name ?? null, trusted: known !== undefined };
    signature = 'invalid';
    const v = minisign.verifySignature(sigText, tagManifestBytes, trusted);
    signature = 'valid';
    signedComment = v.trustedComment;
  } catch (e) {
    if (!isBrickpostError(e)) throw e;
    if (e.code === 'FILE_MISSING') soft(new BrickpostError('UNSIGNED', `shipment ${quote(id)} has no signature (${SIGNATURE_FILE} is missing)`, { path: join(dir, SIGNATURE_FILE) }));
    else if (e.code === 'UNTRUSTED_PUBLISHER') soft(e);
    else soft(new BrickpostError('SIGNATURE_INVALID', `signature of shipment ${quote(id)} is invalid: ${e.message}`, { cause: e, path: join(dir, SIGNATURE_FILE) }));
  }

  if (lenient) Object.assign(lenient, { signature, signer });

  const tags = bagit.parseManifest(tagManifestBytes, { maxEntries: 64, payload: false });
  const tagDigests = new Map(tags.map((t) => [t.path, t.digest.toLowerCase()]));
  for (const name of REQUIRED_TAGS) {
    if (!tagDigests.has(name)) throw new BrickpostError('MALFORMED', `tag manifest of ${quote(id)} does not cover ${name}`, { path: join(dir, TAG_MANIFEST) });
  }
  const tagFiles = new Map<string, Buffer>();
  for (const [name, digest] of tagDigests) {
    const limit = name === 'manifest-sha256.txt' ? MAX_PAYLOAD_MANIFEST : name === 'FORMAT.md' ? 4 * MAX_TAG_FILE : MAX_TAG_FILE;
    const bytes = await readLimited(join(dir, name), limit, 'tag file');
    if (createHash('sha256').update(bytes).digest('hex') !== digest) {
      throw new BrickpostError('FIXITY_MISMATCH', `tag file ${quote(name)} of shipment ${quote(id)} does not match its digest in the tag manifest`, {
        path: join(dir, name),
        hint: 'the drive was damaged or modified',
      });
    }
    tagFiles.set(name, bytes);
  }

  bagit.parseBagitTxt(tagFiles.get('bagit.txt')!);
  const info = parseShipmentInfo(bagit.parseBagInfo(tagFiles.get('bag-info.txt')!));
  if (info.shipment !== id) {
    throw new BrickpostError('MALFORMED', `bag-info.txt names shipment ${quote(info.shipment)} but the folder is ${quote(id)}`, { path: join(dir, 'bag-info.txt') });
  }
  if (signedComment !== null && signedComment !== trustedComment(info)) {
    signature = 'invalid';
    if (lenient) lenient.signature = signature;
    soft(new BrickpostError('SIGNATURE_INVALID', `signed comment ${quote(signedComment)} does not describe shipment ${quote(id)}`, { path: join(dir, SIGNATURE_FILE) }));
  }
  if (signature === 'valid' && signer.keyId !== info.publisherKey) {
    signature = 'invalid';
    if (lenient) lenient.signature = signature;
    soft(new BrickpostError('SIGNATURE_INVALID', `shipment ${quote(id)} names publisher key ${quote(info.publisherKey)} but is signed by ${signer.keyId}`));
  }

  const entries = bagit.parseManifest(tagFiles.get('manifest-sha256.txt')!, { maxEntries: MAX_PAYLOAD_ENTRIES, payload: true });
  const payload = new Map(entries.map((e) => [e.path, e.digest.toLowerCase()]));
  if (payload.size !== info.packs + 1) {
    throw new BrickpostError('MALFORMED', `manifest-sha256.txt of shipment ${quote(id)} lists ${payload.size} payload files; bag-info declares ${info.packs} packs plus the manifest`, { path: join(dir, 'manifest-sha256.txt') });
  }
  for (let i = -1; i < info.packs; i++) {
    const p = i < 0 ? MANIFEST_PATH : packPath(i);
    if (!payload.has(p)) throw new BrickpostError('MALFORMED', `manifest-sha256.txt of shipment ${quote(id)} does not list ${p}`, { path: join(dir, 'manifest-sha256.txt') });
  }
  if (lenient) Object.assign(lenient, { signature, signer });
  return { id, dir, info, payload, signature, signer, problems };
}
