import { dirname, sep } from 'node:path';
import { BrickpostError, isBrickpostError, type ShipmentInfo } from '@brickpost/manifest';
import { shellWord } from '../io/shell.js';

/** What a read-error hint needs of a shipment: its bag folder and its signed bag-info. */
export interface HintedShipment {
  dir: string;
  info: Pick<ShipmentInfo, 'recovery' | 'bagIndex' | 'bagCount' | 'setParity'>;
}

/** The drive (the folder holding `brickpost/`) of a bag folder. */
export function driveOfBag(bag: string): string {
  return dirname(dirname(bag));
}

/**
 * What to do when a drive fails to read (EIO and its kind): check its
 * connection and verify it again; where the shipment carries recovery data,
 * repair rewrites what verify finds damaged; where the set has parity, the
 * other drives can stand in for this one. Only what can work for this
 * shipment is proposed.
 */
export function driveReadHint(s: HintedShipment): string {
  const drive = shellWord(driveOfBag(s.dir));
  const parts = [`check the drive's cable and connection (the system log, dmesg, shows a failing disk), then run: brickpost verify ${drive}`];
  if (s.info.recovery > 0) parts.push(`if it finds damage, 'brickpost repair ${drive}' rewrites the damaged blocks from the drive's own recovery data`);
  if (s.info.bagCount > 1 && s.info.setParity > 0) {
    parts.push(
      `this is drive ${s.info.bagIndex} of a set of ${s.info.bagCount}: any ${s.info.bagCount - s.info.setParity} of its drives are enough to ingest, so the others can stand in for it`,
    );
  }
  return parts.join('; ');
}

/**
 * `e` with the drive's read hint when it is an I/O error (IO) on a file of
 * one of `shipments`' drives (under its `brickpost/` folder); anything else
 * is returned as it is.
 */
export function withDriveHint(e: unknown, shipments: readonly HintedShipment[]): unknown {
  if (!isBrickpostError(e, 'IO') || e.path === undefined) return e;
  const path = e.path;
  const s = shipments.find((x) => path.startsWith(dirname(x.dir) + sep));
  return s ? new BrickpostError('IO', e.message, { cause: e, path, hint: driveReadHint(s) }) : e;
}
