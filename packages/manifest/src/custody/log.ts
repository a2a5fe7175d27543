/**
 * A custody log file (FORMAT.md §custody): the version line, then one event
 * per line. checkCustodyChain checks a list of event lines and says at which
 * event the chain first breaks, and why.
 */

import { BrickpostError, quote } from '../errors.js';
import { CUSTODY_FORMAT, custodyLineHash, custodySignatureValid, parseCustodyEvent, ZERO_HASH, type CustodyEventLine } from './event.js';

/** Largest custody log a reader takes (the limit of a tag file, §4.5). */
export const MAX_CUSTODY_FILE = 1 << 20;

/** The text of a log holding these event lines. */
export function formatCustodyLog(lines: string[]): string {
  return `${CUSTODY_FORMAT}\n${lines.map((l) => `${l}\n`).join('')}`;
}

/**
 * Splits a log into its event lines (text, unparsed), after the text rules
 * of §4.1 and the version line.
 * @throws BrickpostError MALFORMED, TRUNCATED, UNSUPPORTED_VERSION, LIMIT_EXCEEDED
 */
export function splitCustodyLog(bytes: Buffer, where = 'custody log'): string[] {
  if (bytes.length > MAX_CUSTODY_FILE) throw new BrickpostError('LIMIT_EXCEEDED', `${where} is larger than ${MAX_CUSTODY_FILE} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (cause) {
    throw new BrickpostError('MALFORMED', `${where} is not UTF-8`, { cause });
  }
  if (text.startsWith('\ufeff')) throw new BrickpostError('MALFORMED', `${where} starts with a byte-order mark`);
  if (text.includes('\r')) throw new BrickpostError('MALFORMED', `${where} holds a carriage return`);
  if (!text.endsWith('\n')) throw new BrickpostError('TRUNCATED', `${where} does not end with a line feed`);
  const lines = text.slice(0, -1).split('\n');
  const first = lines.shift()!;
  if (first !== CUSTODY_FORMAT) {
    const code = first.startsWith('brickpost-custody/') ? 'UNSUPPORTED_VERSION' : 'MALFORMED';
    throw new BrickpostError(code, `${where} starts with ${quote(first, 60)}, not ${CUSTODY_FORMAT}`);
  }
  return lines;
}

/** What the chain must agree with. */
export interface CustodyExpect {
  shipment: string;
  /** `i of N` of the drive the log is about. */
  drive: string;
  /** The key id that signed the bag: publisher events must be by it. */
  publisherKeyId?: string;
  /** The publisher's public key (`RW…`) when the reader trusts it. */
  publisherKey?: string;
}

/** One line's verdict. */
export interface CheckedEvent {
  /** Parsed, when the line parses. */
  event: CustodyEventLine | null;
  line: string;
  /** The first rule the line breaks, or null. */
  problem: { code: 'MALFORMED' | 'FIXITY_MISMATCH' | 'SIGNATURE_INVALID' | 'LIMIT_EXCEEDED'; message: string } | null;
}

/** How an event is named in messages: `event 3 (verified, 2026-11-22T…)`. */
export function describeEvent(pos: number, e: CustodyEventLine | null): string {
  return e ? `event ${pos} (${e.type}, ${e.at})` : `event ${pos}`;
}

/**
 * Checks event lines in order (§custody reader rules): each parses, its n
 * is its position, it names the shipment and drive, its prev is the SHA-256
 * of the line before (64 zeros for the first), events 1 and 2 are `packed`
 * and `sealed` by the publisher and no later one is, and its signature
 * verifies under its actor's key. Every line gets a verdict; `brokenAt` is
 * the position of the first that fails.
 */
export function checkCustodyChain(lines: string[], expect: CustodyExpect): { events: CheckedEvent[]; brokenAt: number | null } {
  const events: CheckedEvent[] = [];
  let brokenAt: number | null = null;
  let prevHash = ZERO_HASH;
  for (const [i, line] of lines.entries()) {
    const pos = i + 1;
    const checked: CheckedEvent = { event: null, line, problem: null };
    const fail = (code: NonNullable<CheckedEvent['problem']>['code'], what: string): void => {
      checked.problem ??= { code, message: `${describeEvent(pos, checked.event)}: ${what}` };
    };
    try {
      checked.event = parseCustodyEvent(line, `event ${pos}`);
    } catch (e) {
      if (!(e instanceof BrickpostError)) throw e;
      checked.problem = { code: e.code === 'LIMIT_EXCEEDED' ? 'LIMIT_EXCEEDED' : 'MALFORMED', message: e.message };
    }
    const e = checked.event;
    if (e) {
      if (e.n !== pos) fail('MALFORMED', `its n is ${e.n}, expected ${pos} (an event is missing, added or out of order)`);
      if (e.shipment !== expect.shipment) fail('MALFORMED', `it names shipment ${quote(e.shipment)}, not ${expect.shipment}`);
      if (e.drive !== expect.drive) fail('MALFORMED', `it names drive ${quote(e.drive)}, not ${expect.drive}`);
      if (e.prev !== prevHash) fail('FIXITY_MISMATCH', pos === 1 ? 'its prev is not 64 zeros' : `its prev does not match the hash of event ${pos - 1}`);
      const want = pos === 1 ? 'packed' : pos === 2 ? 'sealed' : null;
      if (want && e.type !== want) fail('MALFORMED', `event ${pos} must be ${want}, found ${e.type}`);
      if (!want && (e.type === 'packed' || e.type === 'sealed')) fail('MALFORMED', `a ${e.type} event may only be event ${e.type === 'packed' ? 1 : 2}`);
      if (want && expect.publisherKeyId && e.actor.keyId !== expect.publisherKeyId)
        fail('SIGNATURE_INVALID', `signed by key ${e.actor.keyId}, not by the shipment's publisher ${expect.publisherKeyId}`);
      if (want && expect.publisherKey && e.actor.publicKey !== expect.publisherKey)
        fail('SIGNATURE_INVALID', `its actor's public key is not the publisher key trusted here`);
      if (!custodySignatureValid(e)) fail('SIGNATURE_INVALID', `its signature does not verify with the actor's key ${e.actor.keyId}`);
    }
    prevHash = custodyLineHash(line);
    if (checked.problem && brokenAt === null) brokenAt = pos;
    events.push(checked);
  }
  return { events, brokenAt };
}
