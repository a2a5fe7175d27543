/**
 * The planner's chart: time against dataset size for shipping drives and for
 * the network, both axes logarithmic, as inline SVG (text nodes only).
 */
import type { PlanPoint } from '@brickpost/engine/api';
import { bytes, duration } from '../ui/format.js';

const NS = 'http://www.w3.org/2000/svg';

export type ChartPoint = Pick<PlanPoint, 'bytes' | 'shipSeconds' | 'networkSeconds'>;

function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- every element made here is an SVG element
  const e = document.createElementNS(NS, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** An SVG line chart of `points` (sorted by size), with `mark` highlighted. */
export function timeChart(points: ChartPoint[], mark: number | null): SVGSVGElement {
  const W = 640;
  const H = 360;
  const L = 80;
  const R = 20;
  const T = 20;
  const B = 50;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': 'chart-title', class: 'chart' }) as SVGSVGElement;
  svg.appendChild(el('title', { id: 'chart-title' }, 'Time to move a dataset, by drive and over the network, against its size'));
  const xs = points.map((p) => Math.log10(p.bytes));
  const ys = points
    .flatMap((p) => [p.shipSeconds, p.networkSeconds])
    .filter((v) => v > 0)
    .map(Math.log10);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.floor(Math.min(...ys)), Math.ceil(Math.max(...ys))];
  const px = (b: number): number => L + ((Math.log10(b) - x0) / (x1 - x0 || 1)) * (W - L - R);
  const py = (s: number): number => H - B - ((Math.log10(Math.max(s, 1e-3)) - y0) / (y1 - y0 || 1)) * (H - T - B);
  for (let e = Math.ceil(x0); e <= x1; e++) {
    svg.appendChild(el('line', { x1: px(10 ** e), x2: px(10 ** e), y1: T, y2: H - B, class: 'grid' }));
    svg.appendChild(el('text', { x: px(10 ** e), y: H - B + 18, 'text-anchor': 'middle', class: 'tick' }, bytes(10 ** e)));
  }
  for (const s of [60, 3600, 86400, 7 * 86400, 30 * 86400, 365 * 86400]) {
    if (Math.log10(s) < y0 || Math.log10(s) > y1) continue;
    svg.appendChild(el('line', { x1: L, x2: W - R, y1: py(s), y2: py(s), class: 'grid' }));
    svg.appendChild(el('text', { x: L - 6, y: py(s) + 4, 'text-anchor': 'end', class: 'tick' }, duration(s)));
  }
  svg.appendChild(el('text', { x: (L + W - R) / 2, y: H - 10, 'text-anchor': 'middle', class: 'axis' }, 'Dataset size'));
  const line = (key: 'shipSeconds' | 'networkSeconds', cls: string): void => {
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${px(p.bytes).toFixed(1)},${py(p[key]).toFixed(1)}`).join(' ');
    svg.appendChild(el('path', { d, class: `series ${cls}`, fill: 'none' }));
  };
  line('shipSeconds', 'ship');
  line('networkSeconds', 'net');
  if (mark !== null && mark > 0 && Math.log10(mark) >= x0 && Math.log10(mark) <= x1)
    svg.appendChild(el('line', { x1: px(mark), x2: px(mark), y1: T, y2: H - B, class: 'mark' }));
  // Bottom right: both curves rise to the right, so that corner stays clear.
  svg.appendChild(el('text', { x: W - R - 8, y: H - B - 30, 'text-anchor': 'end', class: 'legend ship' }, '— by drive'));
  svg.appendChild(el('text', { x: W - R - 8, y: H - B - 12, 'text-anchor': 'end', class: 'legend net' }, '— over the network'));
  return svg;
}
