import { join } from 'node:path';
import {
  bagit,
  isBrickpostError,
  MAX_CUSTODY_FILE,
  parseCustodyEvent,
  parseShipmentInfo,
  splitCustodyLog,
  type CustodyEventLine,
  type ShipmentInfo,
} from '@brickpost/manifest';
import { readLimited } from '../io/read-limited.js';
import { CUSTODY_TAG_FILE } from '../drive/layout.js';

/**
 * Reads a custody log's event lines; null when the file does not exist.
 * @throws BrickpostError MALFORMED, TRUNCATED, UNSUPPORTED_VERSION, LIMIT_EXCEEDED, IO
 */
export async function readCustodyLog(file: string, what = 'custody log'): Promise<string[] | null> {
  let bytes: Buffer;
  try {
    bytes = await readLimited(file, MAX_CUSTODY_FILE, what);
  } catch (e) {
    if (isBrickpostError(e, 'FILE_MISSING')) return null;
    throw e;
  }
  return splitCustodyLog(bytes, `${what} ${file}`);
}

/**
 * The event a line holds, parsed, or null when it does not parse: for
 * reading a field of a line whose chain is checked elsewhere
 * (checkCustodyChain reports a malformed line; this does not throw).
 */
export function eventOf(line: string): CustodyEventLine | null {
  try {
    return parseCustodyEvent(line);
  } catch (e) {
    if (isBrickpostError(e)) return null;
    throw e;
  }
}

/** The publisher's events in a bag (custody.ndjson), or null for a bag without them (packed before custody logs). */
export function readBagCustody(bagDir: string): Promise<string[] | null> {
  return readCustodyLog(join(bagDir, CUSTODY_TAG_FILE), 'custody tag file');
}

/**
 * bag-info.txt of a bag, unauthenticated: only for naming the drive of
 * the events this home writes; the chain check says whether they hold.
 * @throws BrickpostError as the bag-info reader
 */
export async function readBagInfo(bagDir: string): Promise<ShipmentInfo> {
  return parseShipmentInfo(bagit.parseBagInfo(await readLimited(join(bagDir, 'bag-info.txt'), 1 << 20, 'bag-info.txt')));
}

/** `i of N`: the drive an event is about, as Bag-Count. */
export function driveOf(info: Pick<ShipmentInfo, 'bagIndex' | 'bagCount'>): string {
  return `${info.bagIndex} of ${info.bagCount}`;
}
