/** `brickpost plan`: ship drives, or send over the network? */
import {
  humanBitRate,
  humanByteRate,
  humanDuration,
  humanSize,
  parseAmount,
  parseBitRate,
  parseByteRate,
  parseDuration,
  parseSize,
  quote,
} from '@brickpost/engine/api';
import type { PlanOptions, PlanResult } from '@brickpost/engine/api';
import type { CommandRun, Invocation } from '../context.js';
import { str } from '../context.js';
import { usageError } from '../failure.js';
import { formatBytes } from '../format.js';
import { withEngine } from '../session.js';

/** Option name, what it must look like, its parser, and the PlanOptions field it sets. */
const OPTIONS: Array<[option: string, example: string, parse: (v: string) => number | undefined, field: keyof PlanOptions]> = [
  ['link', 'a bit rate such as 100Mbit, 1Gbit/s or 10Gbps', parseBitRate, 'linkBitsPerSecond'],
  ['rtt', 'a time such as 80ms or 0.2s', parseDuration, 'rttSeconds'],
  ['window', 'a size such as 64KiB or 4MiB', parseSize, 'windowBytes'],
  ['streams', 'a whole number from 1 to 100000', wholeNumber(100_000), 'streams'],
  ['drive-speed', 'a speed such as 200MB/s or 1.5GB/s', parseByteRate, 'driveBytesPerSecond'],
  ['drives', 'a whole number from 1 to 10000', wholeNumber(10_000), 'drives'],
  ['courier', 'a time such as 24h, 2d or 1.5h', parseDuration, 'courierSeconds'],
  ['drive-cost', 'an amount such as 120 or 99.50', parseAmount, 'driveCost'],
  ['courier-cost', 'an amount such as 120 or 99.50', parseAmount, 'courierCost'],
  ['network-cost-per-tb', 'an amount such as 5 or 0.09', parseAmount, 'networkCostPerTB'],
];

function wholeNumber(max: number): (v: string) => number | undefined {
  return (v) => (/^\d{1,6}$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= max ? Number(v) : undefined);
}

/** The engine's PlanOptions for this invocation. Throws USAGE, quoting the value it cannot read. */
export function planOptions(inv: Invocation): PlanOptions {
  const size = inv.positionals[0]!;
  const bytes = parseSize(size);
  if (bytes === undefined) throw usageError(`SIZE must be a size such as 10TB, 1.5TiB or 500GB, not ${quote(size)}`, 'plan');
  const opts: PlanOptions = { bytes };
  for (const [option, example, parse, field] of OPTIONS) {
    const text = str(inv, option);
    if (text === undefined) continue;
    const v = parse(text);
    if (v === undefined) throw usageError(`--${option} must be ${example}, not ${quote(text)}`, 'plan');
    opts[field] = v;
  }
  return opts;
}

/** Prints both times, the cross-over and the recommendation; --json prints the PlanResult. */
export const run: CommandRun = async (ctx, inv) => {
  const opts = planOptions(inv);
  const r = await withEngine(ctx, (engine) => engine.plan(opts));
  if (ctx.json) {
    await ctx.out.document(r);
    return 0;
  }
  for (const line of planLines(r)) await ctx.out.line(line);
  return 0;
};

/** The human report: a few aligned lines, then the recommendation. */
export function planLines(r: PlanResult): string[] {
  const i = r.inputs;
  const row = (label: string, time: string, rest: string): string => `${label.padEnd(11)} ${time.padEnd(12)} ${rest}`;
  const streams = `${i.streams} stream${i.streams === 1 ? '' : 's'} × ${humanByteRate(r.streamBytesPerSecond)}`;
  const source =
    r.driveSpeedSource === 'measured'
      ? `, measured over your last ${r.measuredPacks === 1 ? 'pack' : `${r.measuredPacks} packs`}`
      : r.driveSpeedSource === 'default'
        ? ' (the default; give --drive-speed)'
        : '';
  const lines = [
    row('size', humanSize(i.bytes), ''),
    row(
      'network',
      humanDuration(r.networkSeconds),
      `${humanByteRate(r.networkBytesPerSecond)}, ${r.bound}-bound (${streams}; ${humanBitRate(i.linkBitsPerSecond)} link, ${formatRtt(i.rttSeconds)} RTT, ${formatBytes(i.windowBytes)} window)`,
    ),
    row(
      'ship',
      humanDuration(r.shipSeconds),
      `write ${humanDuration(r.writeSeconds)} + courier ${humanDuration(r.courierSeconds)} + read ${humanDuration(r.readSeconds)}`,
    ),
    row('drives', String(i.drives), `${i.drives > 1 ? 'written and read in parallel, ' : ''}drive speed ${humanByteRate(i.driveBytesPerSecond)}${source}`),
    row('cross-over', r.crossoverBytes === null ? 'none' : humanSize(r.crossoverBytes), crossoverText(r)),
  ];
  if (r.shipCost !== null || r.networkCost !== null) {
    const money = (v: number | null): string => (v === null ? '?' : v.toFixed(2));
    lines.push(row('cost', '', `ship ${money(r.shipCost)}, network ${money(r.networkCost)}`));
  }
  lines.push(r.recommendation);
  return lines.map((l) => l.trimEnd());
}

function crossoverText(r: PlanResult): string {
  if (r.crossoverBytes !== null) return 'the network is faster below it, drives above it';
  return r.choice === 'network' ? 'the network is faster at every size' : 'drives are faster at every size';
}

function formatRtt(seconds: number): string {
  return seconds < 1 ? `${Math.round(seconds * 1e4) / 10} ms` : humanDuration(seconds);
}
