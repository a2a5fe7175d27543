import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  bagit,
  BrickpostError,
  isBrickpostError,
  MANIFEST_PATH,
  minisign,
  MAX_SET_FILE,
  packPath,
  parseCustodyEvent,
  parseSetFile,
  parseShipmentInfo,
  quote,
  SET_PATH,
  trustedComment,
  type DriveSet,
  type ShipmentInfo,
} from '@brickpost/manifest';
import type { VerifyProblem } from '../api/index.js';
import { windowOfPath } from '../recovery/params.js';
import { readLimited } from '../io/read-limited.js';
import { CUSTODY_TAG_FILE, SIGNATURE_FILE, TAG_MANIFEST } from './layout.js';

const MAX_TAG_FILE = 1 << 20;
const MAX_PAYLOAD_MANIFEST = 64 << 20;
/** Payload files a bag may list: the manifest, the set file, a million packs or parity files (256 TiB), and their recovery files. */
const MAX_PAYLOAD_ENTRIES = 1_200_002;
const REQUIRED_TAGS = ['bagit.txt', 'bag-info.txt', 'manifest-sha256.txt'];

/** How many times a shipment's data may expand: a whole number, or 'none' (`--max-expansion`). */
export type ExpansionLimit = number | 'none';

/** A shipment whose tag files have been read and checked. */
export interface OpenedShipment {
  id: string;
  dir: string;
  info: ShipmentInfo;
  /** Payload file (bag-relative path) → SHA-256 hex, from the signed payload manifest. */
  payload: Map<string, string>;
  /** The set file of a drive set (checked against the payload manifest), or null for one drive. */
  set: DriveSet | null;
  /** A copy of the manifest already checked against its signed SHA-256 (ingest reads only that copy); else the drive's. */
  manifestFile?: string;
  /** That copy was read whole through the strict parser: later reads of it parse with JSON.parse (ManifestReader.pushWritten). */
  manifestChecked?: boolean;
  /** How far its data may expand past its size on the drive: every read of its manifest refuses more (verify/expansion.ts); unset for reads that do no work per byte (ls). */
  maxExpansion?: ExpansionLimit;
  /** Where each pack's file is, for a set read from several drives; else every pack is in `dir`. */
  packDirs?: { bags: string[]; of: Uint16Array };
  signature: 'valid' | 'invalid' | 'missing';
  signer: Signer;
  /** Authenticity and tag-file problems found (lenient mode only; otherwise thrown). */
  problems: VerifyProblem[];
}

/** What keyless verification learns even when opening fails part way. */
export interface LenientFindings {
  problems: VerifyProblem[];
  signature: 'valid' | 'invalid' | 'missing';
  signer: Signer;
}

/**
 * Who signed: the key id, its name in the trust store and whether it is
 * trusted. `publicKey` is set for an untrusted signer whose signature checks
 * out against the key its custody events name (the drive's own claim).
 */
export interface Signer {
  keyId: string;
  name: string | null;
  trusted: boolean;
  publicKey?: string;
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
export async function openShipment(
  id: string,
  dir: string,
  trusted: TrustedSigner[],
  lenient?: LenientFindings,
  opts: { payloadOnly?: boolean } = {},
): Promise<OpenedShipment> {
  const problems: VerifyProblem[] = lenient?.problems ?? [];
  const soft = (e: BrickpostError): void => {
    if (!lenient) throw e;
    problems.push({ code: e.code, message: e.message, ...(e.path ? { path: e.path } : {}) });
  };

  const tagManifestBytes = await readLimited(join(dir, TAG_MANIFEST), MAX_TAG_FILE, 'tag manifest');
  let signature: OpenedShipment['signature'] = 'missing';
  let signer: Signer = { keyId: '', name: null, trusted: false };
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
    // A signature the drive cannot read is not an invalid one: the drive is in the way.
    if (!isBrickpostError(e) || e.category === 'environment') throw e;
    if (e.code === 'FILE_MISSING')
      soft(new BrickpostError('UNSIGNED', `shipment ${quote(id)} has no signature (${SIGNATURE_FILE} is missing)`, { path: join(dir, SIGNATURE_FILE) }));
    else if (e.code === 'UNTRUSTED_PUBLISHER') {
      // The signature may still check out against the key the publisher's custody events name:
      // that says the drive is intact as signed, not that the signer is who you expect.
      const own = await publisherKeyOnDrive(dir, signer.keyId);
      if (own) {
        try {
          const v = minisign.verifySignature(await readLimited(join(dir, SIGNATURE_FILE), minisign.MAX_SIGNATURE_FILE_BYTES, 'signature'), tagManifestBytes, [
            own,
          ]);
          signature = 'valid';
          signedComment = v.trustedComment;
          signer.publicKey = own.line;
        } catch {
          // Left 'invalid': the signature does not check out against that key either.
        }
      }
      soft(
        new BrickpostError(
          'UNTRUSTED_PUBLISHER',
          signature === 'valid'
            ? `shipment ${quote(id)} is validly signed by key ${signer.keyId}, which is not trusted here`
            : `shipment ${quote(id)} is signed by key ${signer.keyId}, which is not trusted here`,
          {
            path: join(dir, SIGNATURE_FILE),
            hint: own
              ? `if ${signer.keyId} is your publisher's key (compare it with the key id they gave you), trust it: brickpost trust add ${own.line}`
              : `trust your publisher's public key (key id ${signer.keyId}) first: brickpost trust add RW… (their whoami prints it)`,
          },
        ),
      );
    } else
      soft(
        new BrickpostError('SIGNATURE_INVALID', `signature of shipment ${quote(id)} is invalid: ${e.message}`, { cause: e, path: join(dir, SIGNATURE_FILE) }),
      );
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
    throw new BrickpostError('MALFORMED', `bag-info.txt names shipment ${quote(info.shipment)} but the folder is ${quote(id)}`, {
      path: join(dir, 'bag-info.txt'),
    });
  }
  if (signedComment !== null && signedComment !== trustedComment(info)) {
    signature = 'invalid';
    if (lenient) lenient.signature = signature;
    soft(
      new BrickpostError('SIGNATURE_INVALID', `signed comment ${quote(signedComment)} does not describe shipment ${quote(id)}`, {
        path: join(dir, SIGNATURE_FILE),
      }),
    );
  }
  if (signature === 'valid' && signer.keyId !== info.publisherKey) {
    signature = 'invalid';
    if (lenient) lenient.signature = signature;
    soft(new BrickpostError('SIGNATURE_INVALID', `shipment ${quote(id)} names publisher key ${quote(info.publisherKey)} but is signed by ${signer.keyId}`));
  }

  const entries = bagit.parseManifest(tagFiles.get('manifest-sha256.txt')!, { maxEntries: MAX_PAYLOAD_ENTRIES, payload: true });
  const payload = new Map(entries.map((e) => [e.path, e.digest.toLowerCase()]));
  // Repair needs only the authenticated payload manifest: the set file may be what is damaged.
  const set = info.bagCount > 1 && !opts.payloadOnly ? await readSet(id, dir, info, payload) : null;
  if (!opts.payloadOnly) checkPayloadList(id, dir, info, payload, set);
  if (lenient) Object.assign(lenient, { signature, signer });
  return { id, dir, info, payload, set, signature, signer, problems };
}

/** Reads and checks the set file a drive of a set carries. */
async function readSet(id: string, dir: string, info: ShipmentInfo, payload: Map<string, string>): Promise<DriveSet> {
  const digest = payload.get(SET_PATH);
  if (!digest)
    throw new BrickpostError(
      'MALFORMED',
      `shipment ${quote(id)} is drive ${info.bagIndex} of ${info.bagCount} but its payload manifest does not list ${SET_PATH}`,
      { path: join(dir, 'manifest-sha256.txt') },
    );
  const bytes = await readLimited(join(dir, SET_PATH), MAX_SET_FILE, 'set file');
  if (createHash('sha256').update(bytes).digest('hex') !== digest) {
    throw new BrickpostError('FIXITY_MISMATCH', `${SET_PATH} of shipment ${quote(id)} does not match its SHA-256 in the signed payload manifest`, {
      path: join(dir, SET_PATH),
      hint: 'the drive was damaged or modified; brickpost repair may fix it',
    });
  }
  return parseSetFile(bytes, { shipment: id, packs: info.packs, drives: info.bagCount, parity: info.setParity });
}

/**
 * The payload manifest must list exactly the manifest, the set file and
 * this drive's share of a set (or every pack, for one drive), and
 * recovery files only when bag-info declares recovery data.
 */
function checkPayloadList(id: string, dir: string, info: ShipmentInfo, payload: Map<string, string>, set: DriveSet | null): void {
  const where = { path: join(dir, 'manifest-sha256.txt') };
  let recovery = 0;
  for (const path of payload.keys()) if (windowOfPath(path) !== undefined) recovery++;
  const want = set ? 2 + set.shares[info.bagIndex - 1]!.files.length : info.packs + 1;
  if (payload.size - recovery !== want) {
    throw new BrickpostError(
      'MALFORMED',
      `manifest-sha256.txt of shipment ${quote(id)} lists ${payload.size - recovery} payload files besides recovery data; bag-info and the set file declare ${want}`,
      where,
    );
  }
  const expected = new Map<string, string | null>([[MANIFEST_PATH, null]]);
  if (set) {
    expected.set(SET_PATH, null);
    for (const f of set.shares[info.bagIndex - 1]!.files) expected.set(f.path, f.sha256);
  } else {
    for (let i = 0; i < info.packs; i++) expected.set(packPath(i), null);
  }
  for (const [path, digest] of payload) {
    if (windowOfPath(path) !== undefined) continue;
    if (!expected.has(path))
      throw new BrickpostError('MALFORMED', `manifest-sha256.txt of shipment ${quote(id)} lists ${quote(path)}, which is not part of this drive`, where);
    const listed = expected.get(path);
    if (listed && listed !== digest)
      throw new BrickpostError(
        'SET_MISMATCH',
        `${quote(path)} has one SHA-256 in the set file and another in the payload manifest of shipment ${quote(id)}`,
        where,
      );
  }
  if (recovery > 0 && info.recovery === 0)
    throw new BrickpostError('MALFORMED', `shipment ${quote(id)} holds recovery files but bag-info declares none`, where);
  if (payload.size - recovery !== expected.size) {
    const missing = [...expected.keys()].filter((p) => !payload.has(p));
    throw new BrickpostError(
      'MALFORMED',
      `manifest-sha256.txt of shipment ${quote(id)} does not list ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''}`,
      where,
    );
  }
}

/**
 * The public key with id `keyId` that the publisher's custody events in a
 * bag name (custody.ndjson, FORMAT.md §custody), or null. Read before the
 * bag is trusted: it only offers a key to check the signature against.
 */
async function publisherKeyOnDrive(dir: string, keyId: string): Promise<(minisign.TrustedKey & { line: string }) | null> {
  const text = await readLimited(join(dir, CUSTODY_TAG_FILE), MAX_TAG_FILE, 'custody tag file').catch(() => null);
  for (const line of text?.toString('utf8').split('\n') ?? []) {
    try {
      const a = parseCustodyEvent(line).actor;
      if (a.keyId !== keyId) continue;
      const pk = minisign.parsePublicKey(a.publicKey);
      return { keyId: pk.keyId, publicKey: pk.publicKey, line: pk.line };
    } catch {
      // Not an event, or not this key: the next line may be.
    }
  }
  return null;
}
