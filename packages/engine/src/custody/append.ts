import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  checkCustodyChain,
  custodyLineHash,
  formatCustodyEvent,
  formatCustodyLog,
  type CustodyDetails,
  type CustodyEventLine,
  type CustodyType,
} from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import type { Context } from '../context.js';
import { atomicTempPrefix, writeAtomic } from '../io/sync.js';
import { hasIdentity } from '../keys/index.js';
import { actorOf } from './actor.js';
import { refuseLink } from './locate.js';
import { readBagCustody, readCustodyLog } from './read.js';
import { storedChain, storeEvents } from '../catalog/custody.js';

/** Which chain an event extends. */
export interface CustodyTarget {
  shipment: string;
  /** `i of N` (Bag-Count). */
  drive: string;
  /** The bag folder (or the folder wipe renamed it to), whose custody.ndjson starts a new log. */
  bag: string | null;
  /** The drive's log, `brickpost/<id>.custody`; null to record in the catalog only. */
  log: string | null;
}

/**
 * Where an event was recorded: on the drive (and in the catalog), in the
 * catalog only, nowhere (a broken or absent chain, a failure: a warning said
 * why), or nowhere because this home has no identity to sign it with.
 */
export interface CustodyRecord {
  event: CustodyEventLine | null;
  where: 'drive' | 'catalog' | 'none' | 'no-identity';
}

/** Warning code: the event could not be written to the drive and is in this home's catalog only. */
export const CATALOG_ONLY = 'CUSTODY_CATALOG_ONLY';
/** Warning code: the event was not recorded at all (a broken chain, or a failure). */
export const NOT_RECORDED = 'CUSTODY_NOT_RECORDED';

function sameStart(a: string[], b: string[]): boolean {
  return a.every((l, i) => b[i] === l);
}

/**
 * Appends one event, signed by this home's key, to a drive's custody chain
 * (FORMAT.md §custody) and to the catalog. The chain extended is the longer
 * of the drive's log (else the bag's publisher events) and the catalog's
 * record when one starts the other, so events recorded here only (a
 * receipt, a read-only drive) reach the drive at its next write. The log is
 * rewritten whole to a temporary file and renamed over the old one: a crash
 * leaves the old log or the new, never a torn line, and the log is small.
 * Nothing happens without an identity or without publisher events to chain
 * to (a shipment packed before custody logs). Never throws: a failure is a
 * warning, and the operation that acted goes on.
 */
export async function appendCustody(ctx: Context, t: CustodyTarget, type: CustodyType, details: CustodyDetails, onEvent: EventSink): Promise<CustodyRecord> {
  try {
    if (!hasIdentity(ctx.home)) return { event: null, where: 'no-identity' };
    const me = ctx.identity();
    let onDrive: string[] = [];
    let writable = t.log !== null;
    if (t.log) {
      try {
        onDrive = (await readCustodyLog(t.log)) ?? (t.bag ? ((await readBagCustody(t.bag)) ?? []) : []);
      } catch (e) {
        // A damaged log is evidence: it is left as it is.
        writable = false;
        onEvent({
          type: 'warning',
          code: CATALOG_ONLY,
          message: `the custody log on the drive cannot be read (${(e as Error).message}); the ${type} event is recorded in this home's catalog only`,
          path: t.log,
        });
      }
    }
    const stored = storedChain(ctx.catalog, t.shipment, t.drive).map((s) => s.line);
    let base: string[];
    if (sameStart(onDrive, stored)) base = stored;
    else if (sameStart(stored, onDrive)) base = onDrive;
    else {
      base = stored;
      writable = false;
      onEvent({
        type: 'warning',
        code: CATALOG_ONLY,
        message: `the custody log on the drive differs from this home's record of shipment ${t.shipment}; the ${type} event is recorded in this home's catalog only ('brickpost custody' shows where they part)`,
        ...(t.log ? { path: t.log } : {}),
      });
    }
    if (base.length === 0) return { event: null, where: 'none' };
    // A broken chain is evidence: it is neither extended nor copied.
    const broken = checkCustodyChain(base, { shipment: t.shipment, drive: t.drive });
    if (broken.brokenAt !== null) {
      const why = broken.events[broken.brokenAt - 1]!.problem!.message;
      onEvent({
        type: 'warning',
        code: NOT_RECORDED,
        message: `the custody log of shipment ${t.shipment} is broken (${why}); it is left as it is and the ${type} event is not recorded ('brickpost custody' shows the chain)`,
        ...(t.log ? { path: t.log } : {}),
      });
      return { event: null, where: 'none' };
    }
    const prev = custodyLineHash(base[base.length - 1]!);
    const event = formatCustodyEvent(
      { n: base.length + 1, type, at: new Date().toISOString(), shipment: t.shipment, drive: t.drive, actor: actorOf(me), details, prev },
      me.signingKey,
    );
    let written = false;
    if (writable && t.log) {
      try {
        await replaceLog(t.log, formatCustodyLog([...base, event.line]));
        written = true;
      } catch (e) {
        onEvent({
          type: 'warning',
          code: CATALOG_ONLY,
          message: `cannot write the custody log on the drive (${(e as Error).message}); the ${type} event is recorded in this home's catalog only`,
          path: t.log,
        });
      }
    }
    if (onDrive.length > 0) storeEvents(ctx.catalog, t.shipment, t.drive, onDrive, true);
    storeEvents(ctx.catalog, t.shipment, t.drive, [...base, event.line], written);
    return { event, where: written ? 'drive' : 'catalog' };
  } catch (e) {
    onEvent({ type: 'warning', code: NOT_RECORDED, message: `the ${type} event of shipment ${t.shipment} was not recorded: ${(e as Error).message}` });
    return { event: null, where: 'none' };
  }
}

/**
 * Replaces the log through writeAtomic, in a folder that is not a link,
 * after removing what a writer killed between writing and renaming left.
 */
async function replaceLog(file: string, text: string): Promise<void> {
  await refuseLink(dirname(file), 'the folder of the custody log');
  const stale = atomicTempPrefix(basename(file));
  for (const n of await readdir(dirname(file)).catch(() => []))
    if (n.startsWith(stale)) await rm(join(dirname(file), n), { force: true }).catch(() => undefined);
  await writeAtomic(file, text, 0o644);
}
