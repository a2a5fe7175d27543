/**
 * The planner: `brickpost plan` as a form. Ship drives or send over the
 * network? Time for both at the chosen size, and a chart of time against
 * size. Empty fields use the engine's defaults (measured drive speeds where
 * this home has them).
 */
import type { PlanOptions, PlanResult } from '@brickpost/engine/api';
import { api } from '../api.js';
import { facts, h, replace, uid } from '../ui/dom.js';
import { duration } from '../ui/format.js';
import { actions, busy, primary } from '../ui/wizard.js';
import { timeChart, type ChartPoint } from './chart.js';

interface NumField {
  el: HTMLElement;
  read(): number | undefined;
}

function num(label: string, name: string, unit: string, value: string, help?: string): NumField {
  const id = uid(name);
  const input = h('input', { id, name, type: 'number', min: 0, step: 'any', value, inputmode: 'decimal', 'aria-describedby': help ? `${id}-help` : null });
  const el = h('div', { class: 'field' }, h('label', { for: id }, `${label} (${unit})`), input, help ? h('p', { class: 'help', id: `${id}-help` }, help) : null);
  return { el, read: () => (input.value.trim() === '' || !Number.isFinite(Number(input.value)) ? undefined : Number(input.value)) };
}

const SIZES = [1e9, 3e9, 1e10, 3e10, 1e11, 3e11, 1e12, 3e12, 1e13, 3e13, 1e14];

/** The planner view; `bytes` prefills the size. */
export function planView(bytes?: number): HTMLElement {
  const size = num('Dataset size', 'plan-size', 'GB', bytes ? String(Math.max(0.001, Math.round(bytes / 1e6) / 1e3)) : '1000');
  const link = num('Network link', 'plan-link', 'Mbit/s', '100');
  const rtt = num('Round-trip time', 'plan-rtt', 'ms', '', 'Empty: 80 ms.');
  const streams = num('Parallel streams', 'plan-streams', 'count', '', 'Empty: 4.');
  const drive = num('Drive speed', 'plan-drive', 'MB/s', '', 'Empty: the speed measured on your drives where known, else 200 MB/s.');
  const drives = num('Drives in parallel', 'plan-drives', 'count', '1');
  const courier = num('Courier, door to door', 'plan-courier', 'hours', '24');
  const out = h('div', { 'aria-live': 'polite', 'data-testid': 'plan-result' });

  const options = (b: number): PlanOptions => {
    const o: PlanOptions = { bytes: b };
    const l = link.read();
    if (l !== undefined) o.linkBitsPerSecond = l * 1e6;
    const r = rtt.read();
    if (r !== undefined) o.rttSeconds = r / 1000;
    const s = streams.read();
    if (s !== undefined) o.streams = s;
    const d = drive.read();
    if (d !== undefined) o.driveBytesPerSecond = d * 1e6;
    const n = drives.read();
    if (n !== undefined) o.drives = n;
    const c = courier.read();
    if (c !== undefined) o.courierSeconds = c * 3600;
    return o;
  };

  const compute = async (): Promise<void> => {
    const b = (size.read() ?? 0) * 1e9;
    const main: PlanResult = await api().plan(options(b));
    const points: ChartPoint[] = await Promise.all(SIZES.map(async (s) => ({ bytes: s, ...(await api().plan(options(s))) })));
    replace(
      out,
      h('p', { class: 'banner info', 'data-testid': 'recommendation' }, main.recommendation),
      facts([
        ['By drive', duration(main.shipSeconds)],
        ['Over the network', duration(main.networkSeconds)],
      ]),
      h('figure', { class: 'chart-box' }, timeChart(points, b), h('figcaption', {}, 'Time against dataset size; the vertical line is the size above.')),
      h(
        'details',
        {},
        h('summary', {}, 'The chart as a table'),
        h('table', {}, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Size'), h('th', { scope: 'col' }, 'By drive'), h('th', { scope: 'col' }, 'Network'))), h('tbody', {}, ...points.map((p) => h('tr', {}, h('td', {}, `${p.bytes / 1e9} GB`), h('td', {}, duration(p.shipSeconds)), h('td', {}, duration(p.networkSeconds)))))),
      ),
    );
  };
  const go = primary('Compute', () => void busy(go, out, compute, 'The planner could not answer'));
  queueMicrotask(() => go.click());
  return h(
    'div',
    { class: 'view', 'data-view': 'plan' },
    h('h1', {}, 'Planner: ship or send?'),
    h('form', { class: 'step-form grid-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) }, size.el, link.el, rtt.el, streams.el, drive.el, drives.el, courier.el, actions(go)),
    out,
  );
}
