/**
 * The ship-or-send model. Pure arithmetic, no Node imports.
 *
 * Network: one TCP stream moves at most a window D per round trip R, and at
 * most the link's B; the two limits combine as T = B / (1 + R·B/D). N streams
 * move N·T, never more than B.
 *
 * Drives: writing takes size / (speed × drives) with the drives written in
 * parallel, reading at the other end the same, and the courier in between.
 * Ship time is linear in size with an offset (the courier), network time is
 * linear without one, so they cross at most once.
 */
import { BrickpostError, quote } from '@brickpost/manifest/errors';
import type { PlanInputs, PlanOptions, PlanPoint, PlanResult } from '../api/plan.js';
import { humanDuration, humanSize } from './units.js';

/** Defaults of every input but the size. */
export const PLAN_DEFAULTS: Omit<PlanInputs, 'bytes'> = {
  linkBitsPerSecond: 100e6,
  rttSeconds: 0.08,
  windowBytes: 4 * 2 ** 20,
  streams: 4,
  driveBytesPerSecond: 200e6,
  drives: 1,
  courierSeconds: 24 * 3600,
};

/** A drive speed measured on this home's recent packs. */
export interface MeasuredSpeed {
  bytesPerSecond: number;
  packs: number;
}

/**
 * Network and ship times for `opts.bytes`, the cross-over, the costs and a
 * curve for a chart. `measured` replaces the default drive speed when
 * `opts.driveBytesPerSecond` is not given.
 * @throws BrickpostError USAGE (an input that is not a positive number, or a
 * fractional stream or drive count)
 */
export function computePlan(opts: PlanOptions, measured: MeasuredSpeed | null = null): PlanResult {
  const inputs = resolveInputs(opts, measured);
  checkCosts(opts);
  const { rate, stream, bound } = networkRate(inputs);
  const drivesRate = inputs.driveBytesPerSecond * inputs.drives;
  const times = (bytes: number): PlanPoint => ({
    bytes,
    networkSeconds: bytes / rate,
    shipSeconds: (2 * bytes) / drivesRate + inputs.courierSeconds,
  });
  const at = times(inputs.bytes);
  const crossoverBytes = crossover(rate, drivesRate, inputs.courierSeconds);
  const choice = at.shipSeconds < at.networkSeconds ? 'ship' : 'network';
  const size = humanSize(inputs.bytes);
  const net = humanDuration(at.networkSeconds);
  const ship = humanDuration(at.shipSeconds);
  return {
    choice,
    networkSeconds: at.networkSeconds,
    shipSeconds: at.shipSeconds,
    recommendation:
      choice === 'ship'
        ? `Ship drives: ${size} arrives in ${ship} by courier against ${net} over the network.`
        : `Send over the network: ${size} arrives in ${net} against ${ship} by courier.`,
    inputs,
    driveSpeedSource: opts.driveBytesPerSecond !== undefined ? 'given' : measured ? 'measured' : 'default',
    measuredPacks: opts.driveBytesPerSecond === undefined && measured ? measured.packs : 0,
    streamBytesPerSecond: stream,
    networkBytesPerSecond: rate,
    bound,
    writeSeconds: inputs.bytes / drivesRate,
    courierSeconds: inputs.courierSeconds,
    readSeconds: inputs.bytes / drivesRate,
    crossoverBytes,
    shipCost: opts.driveCost === undefined && opts.courierCost === undefined ? null : (opts.driveCost ?? 0) * inputs.drives + (opts.courierCost ?? 0),
    networkCost: opts.networkCostPerTB === undefined ? null : (opts.networkCostPerTB * inputs.bytes) / 1e12,
    curve: curveSizes(inputs.bytes, crossoverBytes).map(times),
  };
}

/** Per-stream and total network throughput (bytes per second), and which limit holds it. */
export function networkRate(i: Pick<PlanInputs, 'linkBitsPerSecond' | 'rttSeconds' | 'windowBytes' | 'streams'>): {
  stream: number;
  rate: number;
  bound: 'window' | 'link';
} {
  const link = i.linkBitsPerSecond / 8;
  const stream = link / (1 + (i.rttSeconds * link) / i.windowBytes);
  const all = stream * i.streams;
  return all < link ? { stream, rate: all, bound: 'window' } : { stream, rate: link, bound: 'link' };
}

/**
 * Size S (whole bytes) where S/rate = 2S/drivesRate + courier, or null when no positive
 * size balances them (the network at least as fast per byte as writing and
 * reading the drives, or no courier time at all).
 */
export function crossover(rate: number, drivesRate: number, courierSeconds: number): number | null {
  const perByte = 1 / rate - 2 / drivesRate;
  if (!(perByte > 0) || !(courierSeconds > 0)) return null;
  const s = Math.round(courierSeconds / perByte);
  return Number.isFinite(s) ? s : null;
}

const PER_DECADE = 4;
/** The curve reaches the cross-over only when it is this many decades from the size or fewer. */
const REACH = 6;

/**
 * Log-spaced sizes, 4 a decade and the size itself among them, from 1/100 of
 * the smaller of size and cross-over to 100 × the larger.
 */
function curveSizes(bytes: number, crossoverBytes: number | null): number[] {
  const decades = crossoverBytes === null ? 0 : Math.log10(crossoverBytes / bytes);
  const reach = Math.abs(decades) <= REACH ? Math.ceil(Math.abs(decades) * PER_DECADE) : 0;
  const from = -2 * PER_DECADE - (decades < 0 ? reach : 0);
  const to = 2 * PER_DECADE + (decades > 0 ? reach : 0);
  const sizes: number[] = [];
  for (let k = from; k <= to; k++) {
    const s = Math.max(1, Math.round(bytes * 10 ** (k / PER_DECADE)));
    if (s !== sizes[sizes.length - 1]) sizes.push(s);
  }
  return sizes;
}

function resolveInputs(opts: PlanOptions, measured: MeasuredSpeed | null): PlanInputs {
  const d = PLAN_DEFAULTS;
  return {
    bytes: positive('size', opts.bytes, false),
    linkBitsPerSecond: positive('link bandwidth', opts.linkBitsPerSecond ?? d.linkBitsPerSecond, false),
    rttSeconds: positive('round-trip time', opts.rttSeconds ?? d.rttSeconds, true),
    windowBytes: positive('window', opts.windowBytes ?? d.windowBytes, false),
    streams: whole('streams', opts.streams ?? d.streams, 100_000),
    driveBytesPerSecond: positive('drive speed', opts.driveBytesPerSecond ?? measured?.bytesPerSecond ?? d.driveBytesPerSecond, false),
    drives: whole('drives', opts.drives ?? d.drives, 10_000),
    courierSeconds: positive('courier time', opts.courierSeconds ?? d.courierSeconds, true),
  };
}

function checkCosts(opts: PlanOptions): void {
  const names = { driveCost: 'drive cost', courierCost: 'courier cost', networkCostPerTB: 'network cost per TB' } as const;
  for (const k of Object.keys(names) as Array<keyof typeof names>) if (opts[k] !== undefined) positive(names[k], opts[k], true);
}

function positive(what: string, v: number, zeroOk: boolean): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (v === 0 && !zeroOk)) {
    throw new BrickpostError('USAGE', `plan: ${what} must be a ${zeroOk ? 'non-negative' : 'positive'} number, not ${quote(String(v))}`);
  }
  return v;
}

function whole(what: string, v: number, max: number): number {
  if (!Number.isInteger(v) || v < 1 || v > max)
    throw new BrickpostError('USAGE', `plan: ${what} must be a whole number from 1 to ${max}, not ${quote(String(v))}`);
  return v;
}
