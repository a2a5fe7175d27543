import { BrickpostError, quote } from './errors.js';

/**
 * What bag-info.txt says about a shipment (FORMAT.md §bag-info). These
 * fields are covered by the publisher's signature (through the tag
 * manifest), so a keyless verifier can trust them, and a receiver checks the
 * encrypted manifest against them before believing it.
 */
export const FORMAT_VERSION = 'brickpost/v1';

export interface ShipmentInfo {
  format: typeof FORMAT_VERSION;
  shipment: string;
  dataset: string;
  datasetId: string;
  seq: number;
  parent: string | null;
  label: string;
  publisher: string;
  publisherKey: string;
  created: string;
  /** Files plus directories in the manifest. */
  entries: number;
  files: number;
  /** Bytes of file content the shipment describes. */
  bytes: number;
  packs: number;
  /** Bytes of payload (packs and manifest) in the bag. */
  payloadBytes: number;
  payloadFiles: number;
  bagIndex: number;
  bagCount: number;
  /** Parity drives of a drive set (Brickpost-Set-Parity; 0 for one drive). */
  setParity: number;
  /** Recovery data on this drive, percent of its payload (Brickpost-Recovery; 0 for none). */
  recovery: number;
  /** After this time (ISO 8601 UTC, as `created`) the shipment is refused at ingest (Brickpost-Expires; absent: never). */
  expires?: string;
}

/** bag-info.txt fields for a shipment, standard BagIt labels first. */
export function shipmentInfoFields(i: ShipmentInfo): Array<[string, string]> {
  return [
    ['Source-Organization', i.publisher],
    ['Bagging-Date', i.created.slice(0, 10)],
    ['External-Identifier', i.shipment],
    ['External-Description', `brickpost shipment ${i.seq} of dataset ${i.dataset}${i.label ? `: ${i.label}` : ''}`],
    ['Payload-Oxum', `${i.payloadBytes}.${i.payloadFiles}`],
    ['Bag-Group-Identifier', i.shipment],
    ['Bag-Count', `${i.bagIndex} of ${i.bagCount}`],
    ['Brickpost-Format', i.format],
    ['Brickpost-Shipment', i.shipment],
    ['Brickpost-Dataset', i.dataset],
    ['Brickpost-Dataset-Id', i.datasetId],
    ['Brickpost-Sequence', String(i.seq)],
    ['Brickpost-Parent', i.parent ?? 'none'],
    ['Brickpost-Label', i.label],
    ['Brickpost-Publisher-Key', i.publisherKey],
    ['Brickpost-Created', i.created],
    ['Brickpost-Entries', String(i.entries)],
    ['Brickpost-Files', String(i.files)],
    ['Brickpost-Bytes', String(i.bytes)],
    ['Brickpost-Packs', String(i.packs)],
    ...(i.bagCount > 1 ? [['Brickpost-Set-Parity', String(i.setParity)] as [string, string]] : []),
    ['Brickpost-Recovery', String(i.recovery)],
    ...(i.expires !== undefined ? [['Brickpost-Expires', i.expires] as [string, string]] : []),
  ];
}

/** The time format of Brickpost-Created and Brickpost-Expires: ISO 8601 in UTC with milliseconds. */
const ISO_TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;

/** Whether `t` is a valid time in the ISO_TIME format (one that names a real instant, written as JavaScript writes it). */
function isIsoTime(t: string): boolean {
  if (!ISO_TIME.test(t)) return false;
  const ms = Date.parse(t);
  return Number.isFinite(ms) && new Date(ms).toISOString() === t;
}

/** The trusted comment of the shipment's signature: names what was signed. */
export function trustedComment(i: Pick<ShipmentInfo, 'shipment' | 'datasetId' | 'seq'>): string {
  return `${FORMAT_VERSION} shipment:${i.shipment} dataset:${i.datasetId} seq:${i.seq}`;
}

/**
 * Reads a shipment's description from parsed bag-info fields.
 * @throws BrickpostError MALFORMED, UNSUPPORTED_VERSION
 */
export function parseShipmentInfo(fields: Array<[string, string]>, where = 'bag-info.txt'): ShipmentInfo {
  const map = new Map<string, string>();
  for (const [k, v] of fields) {
    if (k.startsWith('Brickpost-') || k === 'Payload-Oxum' || k === 'Bag-Count') {
      if (map.has(k)) throw new BrickpostError('MALFORMED', `${where}: field ${quote(k)} appears twice`);
      map.set(k, v);
    }
  }
  const get = (k: string): string => {
    const v = map.get(k);
    if (v === undefined) throw new BrickpostError('MALFORMED', `${where}: missing field ${quote(k)}`);
    return v;
  };
  const int = (k: string): number => {
    const v = get(k);
    if (/^[1-9][0-9]{15,}$/.test(v) && !Number.isSafeInteger(Number(v))) {
      throw new BrickpostError('MALFORMED', `${where}: field ${k} is ${quote(v, 40)}, past the largest number a drive may carry (2^53 - 1)`);
    }
    if (!/^(0|[1-9][0-9]{0,15})$/.test(v) || !Number.isSafeInteger(Number(v)))
      throw new BrickpostError('MALFORMED', `${where}: field ${k} is not a whole number: ${quote(v)}`);
    return Number(v);
  };
  const format = get('Brickpost-Format');
  if (format !== FORMAT_VERSION) {
    throw new BrickpostError('UNSUPPORTED_VERSION', `${where}: format ${quote(format)} is not ${FORMAT_VERSION}`, {
      hint: 'upgrade brickpost to read this drive',
    });
  }
  const oxum = /^(0|[1-9][0-9]{0,15})\.(0|[1-9][0-9]{0,15})$/.exec(get('Payload-Oxum'));
  if (!oxum) throw new BrickpostError('MALFORMED', `${where}: bad Payload-Oxum ${quote(get('Payload-Oxum'))}`);
  const count = /^([1-9][0-9]{0,3}) of ([1-9][0-9]{0,3})$/.exec(get('Bag-Count'));
  if (!count || Number(count[1]) > Number(count[2])) throw new BrickpostError('MALFORMED', `${where}: bad Bag-Count ${quote(get('Bag-Count'))}`);
  if (!Number.isSafeInteger(Number(oxum[1])) || !Number.isSafeInteger(Number(oxum[2])))
    throw new BrickpostError('MALFORMED', `${where}: Payload-Oxum beyond 2^53`);
  const parent = get('Brickpost-Parent');
  const bagCount = Number(count[2]);
  const setParity = bagCount > 1 ? int('Brickpost-Set-Parity') : 0;
  if (setParity >= bagCount) throw new BrickpostError('MALFORMED', `${where}: Brickpost-Set-Parity ${setParity} leaves no data drive in a set of ${bagCount}`);
  const recovery = map.has('Brickpost-Recovery') ? int('Brickpost-Recovery') : 0;
  if (recovery > 100) throw new BrickpostError('MALFORMED', `${where}: Brickpost-Recovery ${recovery} is more than 100 percent`);
  const created = get('Brickpost-Created');
  if (!isIsoTime(created)) throw new BrickpostError('MALFORMED', `${where}: Brickpost-Created ${quote(created)} is not a time like 2026-11-22T05:08:11.909Z`);
  const expires = map.get('Brickpost-Expires');
  if (expires !== undefined && !isIsoTime(expires)) {
    throw new BrickpostError('MALFORMED', `${where}: Brickpost-Expires ${quote(expires)} is not a time like 2026-11-22T05:08:11.909Z`);
  }
  if (expires !== undefined && Date.parse(expires) <= Date.parse(created)) {
    throw new BrickpostError(
      'MALFORMED',
      `${where}: Brickpost-Expires ${expires} is not after Brickpost-Created ${created}: the shipment would expire before it was packed`,
    );
  }
  return {
    format: FORMAT_VERSION,
    shipment: get('Brickpost-Shipment'),
    dataset: get('Brickpost-Dataset'),
    datasetId: get('Brickpost-Dataset-Id'),
    seq: int('Brickpost-Sequence'),
    parent: parent === 'none' ? null : parent,
    label: get('Brickpost-Label'),
    publisher: fields.find(([k]) => k === 'Source-Organization')?.[1] ?? '',
    publisherKey: get('Brickpost-Publisher-Key'),
    created,
    entries: int('Brickpost-Entries'),
    files: int('Brickpost-Files'),
    bytes: int('Brickpost-Bytes'),
    packs: int('Brickpost-Packs'),
    payloadBytes: Number(oxum[1]),
    payloadFiles: Number(oxum[2]),
    bagIndex: Number(count[1]),
    bagCount,
    setParity,
    recovery,
    ...(expires !== undefined ? { expires } : {}),
  };
}
