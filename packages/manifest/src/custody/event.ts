/**
 * One custody event: a line of strict JSON (FORMAT.md §custody), members in
 * a fixed order, the last one `sig`: the actor's Ed25519 signature over the
 * domain string and the line without `,"sig":"…"`.
 */

import { createHash } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { parseStrictJson, type Json } from '../records/json.js';
import { decodeBase64Exact } from '../sign/base64.js';
import { ed25519Sign, ed25519Verify } from '../sign/ed25519.js';
import { keyIdHex, parsePublicKey, publicKeyString, type SigningKey } from '../sign/key.js';

/** The version string: first line of every custody log, and the signing domain. */
export const CUSTODY_FORMAT = 'brickpost-custody/v1';
/** The SHA-256 a first event names as its `prev`. */
export const ZERO_HASH = '0'.repeat(64);
/** Longest event line, in bytes without its LF. */
export const MAX_CUSTODY_LINE = 8192;

export const CUSTODY_TYPES = ['packed', 'sealed', 'verified', 'ingested', 'receipt-issued', 'wiped', 'rebuilt'] as const;
export type CustodyType = (typeof CUSTODY_TYPES)[number];

/** The details members each event type carries: name → kind of value. */
export const CUSTODY_DETAILS: Record<CustodyType, Record<string, 'int' | 'hex' | 'bool' | 'text' | 'hex?'>> = {
  packed: { files: 'int', bytes: 'int', packs: 'int', payloadFiles: 'int', payloadBytes: 'int' },
  sealed: { manifest: 'hex', payloadManifest: 'hex', bagInfo: 'hex' },
  verified: { level: 'text', ok: 'bool', problems: 'int', tagManifest: 'hex?' },
  ingested: { destination: 'text', files: 'int', bytes: 'int' },
  'receipt-issued': { receipt: 'hex', ok: 'bool', destination: 'text' },
  wiped: { removed: 'text', files: 'int', bytes: 'int' },
  rebuilt: { from: 'text', files: 'int', bytes: 'int' },
};

export type CustodyDetails = Record<string, string | number | boolean | null>;

/** Who acted: a display name and the minisign key that signs the event. */
export interface CustodyActor {
  name: string;
  /** 16 upper-case hex digits, as minisign prints it. */
  keyId: string;
  /** The minisign public key string, `RW…`. */
  publicKey: string;
}

/** An event's members, in line order. */
export interface CustodyEventFields {
  n: number;
  type: CustodyType;
  at: string;
  shipment: string;
  /** `i of N`, as Bag-Count. */
  drive: string;
  actor: CustodyActor;
  details: CustodyDetails;
  prev: string;
}

export interface CustodyEventLine extends CustodyEventFields {
  sig: string;
  /** The line's text, without LF. */
  line: string;
  /** SHA-256 (hex) of the line's UTF-8 bytes. */
  hash: string;
}

const SHIPMENT = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/;
const DRIVE = /^([1-9][0-9]{0,3}) of ([1-9][0-9]{0,3})$/;
const AT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,3})?Z$/;
const HEX64 = /^[0-9a-f]{64}$/;
const KEY_ID = /^[0-9A-F]{16}$/;
const SIG_TAIL = /,"sig":"([A-Za-z0-9+/=]{88})"\}$/;
const MEMBERS = ['n', 'type', 'at', 'shipment', 'drive', 'actor', 'details', 'prev', 'sig'];
const MAX_TEXT = 1024;

/** SHA-256 (hex) of a line's UTF-8 bytes (without LF): what the next event's `prev` names. */
export function custodyLineHash(line: string): string {
  return createHash('sha256').update(line, 'utf8').digest('hex');
}

function signedMessage(unsigned: string): Buffer {
  return Buffer.from(`${CUSTODY_FORMAT}\n${unsigned}`, 'utf8');
}

/** The actor record of a signing key. */
export function custodyActor(name: string, key: Pick<SigningKey, 'keyId' | 'publicKey'>): CustodyActor {
  return { name, keyId: keyIdHex(key.keyId), publicKey: publicKeyString(key) };
}

/**
 * Writes and signs one event line (without LF).
 * @throws BrickpostError USAGE when a member breaks the rules readers check (§custody).
 */
export function formatCustodyEvent(fields: CustodyEventFields, key: SigningKey): CustodyEventLine {
  const ordered = {
    n: fields.n,
    type: fields.type,
    at: fields.at,
    shipment: fields.shipment,
    drive: fields.drive,
    actor: { name: fields.actor.name, keyId: fields.actor.keyId, publicKey: fields.actor.publicKey },
    details: fields.details,
    prev: fields.prev,
  };
  const unsigned = JSON.stringify(ordered);
  const sig = ed25519Sign(key.seed, signedMessage(unsigned)).toString('base64');
  const line = `${unsigned.slice(0, -1)},"sig":"${sig}"}`;
  try {
    return parseCustodyEvent(line);
  } catch (e) {
    throw new BrickpostError('USAGE', `cannot write custody event: ${(e as Error).message}`, { cause: e });
  }
}

function bad(where: string, what: string): BrickpostError {
  return new BrickpostError('MALFORMED', `${where}: ${what}`);
}

function text(v: Json | undefined, where: string, name: string, max = MAX_TEXT): string {
  if (typeof v !== 'string') throw bad(where, `${name} is not a string`);
  if (v.length > max) throw bad(where, `${name} is longer than ${max} code units`);
  return v;
}

function int(v: Json | undefined, where: string, name: string): number {
  if (typeof v !== 'number' || v < 0) throw bad(where, `${name} is not a whole number`);
  return v;
}

function object(v: Json | undefined, where: string, name: string): { [k: string]: Json } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(where, `${name} is not an object`);
  return v;
}

function exactly(o: { [k: string]: Json }, names: string[], where: string, what: string): void {
  for (const k of Object.keys(o)) if (!names.includes(k)) throw bad(where, `${what} has the member ${quote(k)}, which is not allowed`);
  for (const k of names) if (!(k in o)) throw bad(where, `${what} lacks the member ${quote(k)}`);
}

/**
 * Parses one event line: strict JSON (§strict-json, depth 2), exactly the
 * members of §custody with values in range, `sig` last. Does not check the
 * signature or the chain.
 * @throws BrickpostError MALFORMED, LIMIT_EXCEEDED
 */
export function parseCustodyEvent(line: string, where = 'custody event'): CustodyEventLine {
  if (Buffer.byteLength(line, 'utf8') > MAX_CUSTODY_LINE) throw new BrickpostError('LIMIT_EXCEEDED', `${where}: longer than ${MAX_CUSTODY_LINE} bytes`);
  const o = object(parseStrictJson(line, { maxDepth: 2, where }), where, 'the event');
  exactly(o, MEMBERS, where, 'the event');
  if (Object.keys(o).join() !== MEMBERS.join() || !SIG_TAIL.test(line))
    throw bad(where, 'members are not in the order n, type, at, shipment, drive, actor, details, prev, sig');
  const n = int(o.n, where, 'n');
  if (n < 1) throw bad(where, 'n is 0');
  const type = text(o.type, where, 'type') as CustodyType;
  if (!CUSTODY_TYPES.includes(type)) throw bad(where, `unknown event type ${quote(type)}`);
  const at = text(o.at, where, 'at', 64);
  if (!AT.test(at) || Number.isNaN(Date.parse(at))) throw bad(where, `at ${quote(at)} is not a UTC time`);
  const shipment = text(o.shipment, where, 'shipment', 64);
  if (!SHIPMENT.test(shipment)) throw bad(where, `shipment ${quote(shipment)} is not a shipment id`);
  const drive = text(o.drive, where, 'drive', 16);
  const dm = DRIVE.exec(drive);
  if (!dm || Number(dm[1]) > Number(dm[2])) throw bad(where, `drive ${quote(drive)} is not "i of N"`);
  const a = object(o.actor, where, 'actor');
  exactly(a, ['name', 'keyId', 'publicKey'], where, 'actor');
  const actor: CustodyActor = {
    name: text(a.name, where, 'actor name'),
    keyId: text(a.keyId, where, 'actor keyId', 16),
    publicKey: text(a.publicKey, where, 'actor publicKey', 56),
  };
  if (!KEY_ID.test(actor.keyId)) throw bad(where, `actor keyId ${quote(actor.keyId)} is not 16 upper-case hex digits`);
  let pk;
  try {
    pk = parsePublicKey(actor.publicKey);
  } catch {
    throw bad(where, `actor publicKey ${quote(actor.publicKey)} is not a minisign public key`);
  }
  if (pk.line !== actor.publicKey || pk.keyIdHex !== actor.keyId)
    throw bad(where, `actor keyId ${actor.keyId} is not the key id of its publicKey (${pk.keyIdHex})`);
  const details = readDetails(type, object(o.details, where, 'details'), where);
  const prev = text(o.prev, where, 'prev', 64);
  if (!HEX64.test(prev)) throw bad(where, `prev ${quote(prev)} is not 64 lower-case hex digits`);
  const sig = text(o.sig, where, 'sig', 88);
  if (decodeBase64Exact(sig, 64) === undefined) throw bad(where, `sig ${quote(sig)} is not base64 of 64 bytes`);
  return { n, type, at, shipment, drive, actor, details, prev, sig, line, hash: custodyLineHash(line) };
}

function readDetails(type: CustodyType, d: { [k: string]: Json }, where: string): CustodyDetails {
  const spec = CUSTODY_DETAILS[type];
  exactly(d, Object.keys(spec), where, `details of a ${type} event`);
  const out: CustodyDetails = {};
  for (const [k, kind] of Object.entries(spec)) {
    const v = d[k];
    if (kind === 'int') out[k] = int(v, where, k);
    else if (kind === 'bool') {
      if (typeof v !== 'boolean') throw bad(where, `${k} is not true or false`);
      out[k] = v;
    } else if (kind === 'text') out[k] = text(v, where, k);
    else if (kind === 'hex?' && v === null) out[k] = null;
    else {
      const h = text(v, where, k, 64);
      if (!HEX64.test(h)) throw bad(where, `${k} ${quote(h)} is not 64 lower-case hex digits`);
      out[k] = h;
    }
  }
  return out;
}

/** True when the event's `sig` verifies under its actor's public key over the domain and the line without `sig`. */
export function custodySignatureValid(e: CustodyEventLine): boolean {
  const m = SIG_TAIL.exec(e.line);
  if (!m) return false;
  const unsigned = `${e.line.slice(0, m.index)}}`;
  const pk = parsePublicKey(e.actor.publicKey);
  return ed25519Verify(pk.publicKey, signedMessage(unsigned), decodeBase64Exact(m[1]!, 64)!);
}
