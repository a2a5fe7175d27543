import { BrickpostError, checkCustodyChain, describeEvent, isBrickpostError, quote, type CheckedEvent, type ShipmentInfo } from '@brickpost/manifest';
import type { CustodyEvent, CustodyOptions, CustodyProblem, CustodyReport } from '../api/index.js';
import { publisherOfShipment } from '../catalog/ingests.js';
import type { Context } from '../context.js';
import { openShipment, type LenientFindings } from '../drive/open.js';
import { listTrust, trustedVerifiers } from '../keys/index.js';
import { locateCustody } from './locate.js';
import { driveOf, eventOf, readBagCustody, readBagInfo, readCustodyLog } from './read.js';
import { storedChain, storedDrives } from '../catalog/custody.js';

/**
 * Checks a shipment's custody chain (FORMAT.md §custody) on a drive: the
 * drive's log, else the bag's publisher events, followed by the events this
 * home recorded in its catalog only. Besides the rules of each event, the
 * publisher events must equal those in the (signed) bag, and the chain must
 * agree with what this home recorded: an event it wrote to the drive that
 * is gone or changed breaks the chain there. Without a drive, the catalog's
 * record is checked alone.
 * @throws BrickpostError NOT_FOUND, NOT_A_DRIVE, AMBIGUOUS_SHIPMENT, USAGE
 */
export async function custodyReport(ctx: Context, opts: CustodyOptions): Promise<CustodyReport> {
  const problems: CustodyProblem[] = [];
  const soft = (e: unknown, path?: string): void => {
    if (!isBrickpostError(e)) throw e;
    const at = e.path ?? path;
    problems.push({ code: e.code, message: e.message, ...(at ? { path: at } : {}) });
  };
  let id: string;
  let bagDir: string | null = null;
  let log: string | null = null;
  let logLines: string[] | null = null;
  let bagLines: string[] | null = null;
  let info: ShipmentInfo | null = null;
  let wholeFileBroken = false;
  if (opts.drive) {
    const place = await locateCustody(opts.drive, opts.shipment);
    id = place.id;
    bagDir = place.bag;
    try {
      logLines = await readCustodyLog(place.log);
      if (logLines) log = place.log;
    } catch (e) {
      soft(e, place.log);
      log = place.log;
      wholeFileBroken = true;
    }
    if (bagDir) {
      const findings: LenientFindings = { problems: [], signature: 'missing', signer: { keyId: '', name: null, trusted: false } };
      try {
        info = (await openShipment(id, bagDir, trustedVerifiers(ctx.catalog), findings, { payloadOnly: true })).info;
      } catch (e) {
        soft(e);
        info = await readBagInfo(bagDir).catch(() => null);
      }
      for (const p of findings.problems) if (p.code !== 'UNTRUSTED_PUBLISHER') problems.push(p);
      try {
        bagLines = await readBagCustody(bagDir);
      } catch (e) {
        soft(e);
      }
    }
  } else {
    if (!opts.shipment) throw new BrickpostError('USAGE', 'give a drive, or the shipment whose custody this home recorded');
    id = opts.shipment;
  }

  const chain = logLines ?? bagLines ?? [];
  // Every event of a chain names its drive; the first that parses says which (the chain check reports the others).
  const firstDrive = chain.map(eventOf).find((e) => e !== null)?.drive;
  const drive = info ? driveOf(info) : (firstDrive ?? storedDrives(ctx.catalog, id)[0] ?? null);
  const stored = drive ? storedChain(ctx.catalog, id, drive) : [];
  if (!opts.drive && stored.length === 0)
    throw new BrickpostError('NOT_FOUND', `this home has no custody record of shipment ${quote(id)}`, { hint: 'give the drive that holds it' });

  let brokenAt: number | null = wholeFileBroken ? 1 : null;
  // The chain's own problems come first; comparisons with the bag and this home's record after.
  const compared: CustodyProblem[] = [];
  const breakAt = (n: number, code: string, message: string, path?: string, into = compared): void => {
    into.push({ code, message, n, ...(path ? { path } : {}) });
    brokenAt = brokenAt === null ? n : Math.min(brokenAt, n);
  };
  if (opts.drive && chain.length === 0 && !wholeFileBroken && bagDir && bagLines === null && problems.length === 0) {
    problems.push({ code: 'FILE_MISSING', message: `shipment ${quote(id)} has no custody log: it was packed before brickpost recorded custody` });
  }
  // The publisher's events in the log must be those the bag's signature covers.
  if (logLines && bagLines) {
    const at = bagLines.findIndex((l, i) => logLines[i] !== l);
    if (at >= 0)
      breakAt(
        at + 1,
        'FIXITY_MISMATCH',
        `event ${at + 1}: ${at < logLines.length ? 'differs from' : 'is missing; the bag holds'} the publisher's event ${at + 1} in the bag's custody.ndjson`,
        log ?? undefined,
      );
  }
  // What this home recorded: changed or removed events break the chain; catalog-only ones continue it.
  let agree = true;
  for (const [i, s] of stored.entries()) {
    if (i < chain.length) {
      if (s.line !== chain[i]) {
        agree = false;
        breakAt(i + 1, 'FIXITY_MISMATCH', `event ${i + 1}: differs from the event ${i + 1} this home recorded`, log ?? undefined);
        break;
      }
    } else if (s.onDrive && opts.drive) {
      agree = false;
      breakAt(
        i + 1,
        'FILE_MISSING',
        `${describeEvent(i + 1, eventOf(s.line))}: this home wrote it to the drive's custody log, which no longer holds it`,
        log ?? undefined,
      );
      break;
    }
  }
  const extra = agree ? stored.slice(chain.length).map((s) => s.line) : [];
  const all = [...chain, ...extra];
  const publisherKeyId = info?.publisherKey ?? publisherOf(ctx, id);
  const trust = listTrust(ctx.catalog);
  const publisherKey = trust.find((k) => k.keyId === publisherKeyId)?.minisignPublicKey;
  const checked = checkCustodyChain(all, {
    shipment: id,
    drive: drive ?? '1 of 1',
    ...(publisherKeyId ? { publisherKeyId } : {}),
    ...(publisherKey ? { publisherKey } : {}),
  });
  for (const [i, c] of checked.events.entries())
    if (c.problem) breakAt(i + 1, c.problem.code, c.problem.message, i < chain.length ? (log ?? bagDir ?? undefined) : undefined, problems);
  problems.push(...compared);

  const source = (i: number): CustodyEvent['source'] => (i >= chain.length ? 'catalog' : logLines ? 'drive' : 'bag');
  const events = checked.events.flatMap((c, i) => (c.event ? [toEvent(c, source(i), trust)] : []));
  problems.sort((a, b) => (a.n ?? 0) - (b.n ?? 0));
  return {
    shipmentId: id,
    drive,
    bag: !opts.drive ? 'unknown' : bagDir ? 'present' : 'removed',
    log,
    ok: brokenAt === null && problems.length === 0,
    events,
    brokenAt,
    problems,
  };
}

function toEvent(c: CheckedEvent, source: CustodyEvent['source'], trust: Array<{ keyId: string; minisignPublicKey: string; name: string }>): CustodyEvent {
  const e = c.event!;
  const t = trust.find((k) => k.keyId === e.actor.keyId && k.minisignPublicKey === e.actor.publicKey);
  return {
    n: e.n,
    type: e.type,
    at: e.at,
    shipment: e.shipment,
    drive: e.drive,
    actor: { ...e.actor, trusted: t !== undefined, trustedAs: t?.name ?? null },
    details: e.details,
    prev: e.prev,
    hash: e.hash,
    source,
    valid: c.problem === null,
  };
}

/** The publisher key id of a shipment this home packed or ingested, from the catalog. */
function publisherOf(ctx: Context, id: string): string | undefined {
  return publisherOfShipment(ctx.catalog, id);
}
