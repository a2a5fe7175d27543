/** `brickpost subscribers`: who holds which shipment, who is behind and by how much, where the drives are. */
import { EXIT_CODES, parseMaxLag, type MaxLag, type SubscriberLag, type SubscribersReport } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { list, str } from '../context.js';
import { formatBytes, plural, printable } from '../format.js';
import { withEngine } from '../session.js';

/** The table (or one JSON document); exit 9 (lagging) when any subscriber is past --max-lag, 0 otherwise. */
export const run: CommandRun = async (ctx, inv) => {
  const maxLag = parseMaxLag(list(inv, 'max-lag'));
  const dataset = str(inv, 'dataset');
  const now = str(inv, 'now') ?? (process.env.BRICKPOST_NOW || undefined);
  const r = await withEngine(
    ctx,
    (engine) => engine.subscribers({ maxLag, ...(dataset !== undefined ? { dataset } : {}), ...(now !== undefined ? { now } : {}) }),
    { create: false },
  );
  if (ctx.json) {
    // The document says it all (past, and pastMaxLag of each); the exit code is for scripts.
    await ctx.out.document(r);
    return r.past === 0 ? 0 : EXIT_CODES.lagging;
  }
  for (const line of subscriberLines(r)) await ctx.out.line(line);
  if (r.past === 0) return 0;
  const names = r.subscribers.filter((s) => s.pastMaxLag).map((s) => `${printable(s.name ?? s.recipient)} (${printable(s.dataset)})`);
  await ctx.out.failure({
    type: 'error',
    code: 'SUBSCRIBER_LAGGING',
    exitCode: EXIT_CODES.lagging,
    message: `${plural(r.past, 'subscriber')} past the maximum lag of ${describeMaxLag(r.maxLag)}: ${names.join(', ')}`,
    hint: 'ship them the shipments they lack, or ask them for a receipt: brickpost receipt import FILE records it',
  });
  return EXIT_CODES.lagging;
};

/** `3 shipments or 30 days`. */
export function describeMaxLag(m: MaxLag | null): string {
  if (!m) return 'none';
  const parts = [];
  if (m.shipments !== undefined) parts.push(plural(m.shipments, 'shipment'));
  if (m.seconds !== undefined) parts.push(m.seconds % 86400 === 0 ? plural(m.seconds / 86400, 'day') : `${Math.round(m.seconds / 3600)} h`);
  return parts.join(' or ');
}

/** One block per subscriber: the lag line, then the unacknowledged shipments and the drives. */
export function subscriberLines(r: SubscribersReport): string[] {
  if (r.subscribers.length === 0) return ['no subscribers: this home has sealed no shipment for anyone but itself, and imported no receipt'];
  const out = [`as of ${r.now.slice(0, 19).replace('T', ' ')} UTC${r.maxLag ? `, maximum lag ${describeMaxLag(r.maxLag)}` : ''}`];
  out.push('SUBSCRIBER            DATASET       ACKED  NEWEST  BEHIND       BYTES    DAYS  FLAG');
  for (const s of r.subscribers) out.push(row(s));
  for (const s of r.subscribers) {
    out.push('');
    out.push(
      `${printable(s.name ?? s.recipient)}, dataset ${printable(s.dataset)}: ${s.acknowledged ? `acknowledged #${s.acknowledged.seq} ${s.acknowledged.shipment} (receipt of ${s.acknowledged.receiptCreated.slice(0, 10)}, ${s.acknowledged.level})` : 'no receipt yet'}`,
    );
    for (const u of s.unacknowledged)
      out.push(
        `  sent, not acknowledged  #${u.seq} ${u.shipment}  packed ${u.created.slice(0, 10)}  ${formatBytes(u.bytesOnDrive)}${u.label ? `  ${printable(u.label)}` : ''}`,
      );
    for (const d of s.drives) out.push(`  drive ${d.drive.padEnd(7)} of #${String(d.seq).padEnd(3)} ${d.state.padEnd(12)} ${stepDates(d)}`);
  }
  return out;
}

function row(s: SubscriberLag): string {
  const who = printable(s.name ?? s.recipient.slice(0, 16) + '…');
  return [
    who.padEnd(21).slice(0, 21),
    printable(s.dataset).padEnd(12).slice(0, 12),
    (s.acknowledged ? `#${s.acknowledged.seq}` : '-').padStart(6),
    `#${s.newest.seq}`.padStart(7),
    String(s.lag.shipments).padStart(7),
    formatBytes(s.lag.bytes).padStart(11),
    s.lag.days.toFixed(1).padStart(7),
    s.pastMaxLag ? ' PAST' : '',
  ]
    .join(' ')
    .trimEnd();
}

function stepDates(d: SubscriberLag['drives'][number]): string {
  const steps: Array<[string, string | null]> = [
    ['packed', d.packedAt],
    ['shipped', d.shippedAt],
    ['acknowledged', d.acknowledgedAt],
    ['wiped', d.wipedAt],
    ['returned', d.returnedAt],
  ];
  return steps
    .filter(([, at]) => at !== null)
    .map(([k, at]) => `${k} ${at!.slice(0, 10)}`)
    .join(', ');
}
