/**
 * The planner: `brickpost plan` as a form. Ship drives or send over the
 * network? Time for both at the chosen size, and a chart of time against
 * size. Empty fields use the engine's defaults (measured drive speeds where
 * this home has them).
 */
import type { PlanOptions, PlanResult } from '@brickpost/engine/api';
import { api } from '../api.js';
import { dataTable, facts, h, replace, uid } from '../ui/dom.js';
import { bytes as fmtBytes, duration, rate } from '../ui/format.js';
import { actions, busy, primary } from '../ui/wizard.js';
import { timeChart } from './chart.js';

interface NumField {
  el: HTMLElement;
  read(): number | undefined;
}

function num(label: string, name: string, unit: string, value: string, help?: string): NumField {
  const id = uid(name);
  const input = h('input', { id, name, type: 'number', min: 0, step: 'any', value, inputmode: 'decimal', 'aria-describedby': help ? `${id}-help` : null });
  const el = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, `${label} (${unit})`),
    input,
    help ? h('p', { class: 'help', id: `${id}-help` }, help) : null,
  );
  return { el, read: () => (input.value.trim() === '' || !Number.isFinite(Number(input.value)) ? undefined : Number(input.value)) };
}

/** The planner view; `bytes` prefills the size. */
export function planView(bytes?: number): HTMLElement {
  const size = num('Dataset size', 'plan-size', 'GB', bytes ? String(Math.max(0.001, Math.round(bytes / 1e6) / 1e3)) : '1000');
  const link = num('Network link', 'plan-link', 'Mbit/s', '100');
  const rtt = num('Round-trip time', 'plan-rtt', 'ms', '', 'Empty: 80 ms.');
  const streams = num('Parallel streams', 'plan-streams', 'count', '', 'Empty: 4.');
  const drive = num('Drive speed', 'plan-drive', 'MB/s', '', 'Empty: the speed measured on your drives where known, else 200 MB/s.');
  const drives = num('Drives in parallel', 'plan-drives', 'count', '1');
  const courier = num('Courier, door to door', 'plan-courier', 'hours', '24');
  const driveCost = num('Price of one drive', 'plan-drive-cost', 'amount', '', 'Optional: gives the cost of shipping.');
  const courierCost = num('Price of the courier', 'plan-courier-cost', 'amount', '');
  const netCost = num('Network price per TB', 'plan-net-cost', 'amount', '', 'Optional: gives the cost of sending.');
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
    const dc = driveCost.read();
    if (dc !== undefined) o.driveCost = dc;
    const cc = courierCost.read();
    if (cc !== undefined) o.courierCost = cc;
    const nc = netCost.read();
    if (nc !== undefined) o.networkCostPerTB = nc;
    return o;
  };

  const compute = async (): Promise<void> => {
    const b = (size.read() ?? 0) * 1e9;
    const p: PlanResult = await api().plan(options(b));
    const source =
      p.driveSpeedSource === 'measured'
        ? `measured: median of your last ${p.measuredPacks} packs`
        : p.driveSpeedSource === 'given'
          ? 'as given'
          : 'default, no pack measured yet';
    const cost = (c: number | null): string => (c === null ? '' : `, costs ${c.toLocaleString()}`);
    replace(
      out,
      h('p', { class: 'banner info', 'data-testid': 'recommendation' }, p.recommendation),
      facts([
        [
          'By drive',
          `${duration(p.shipSeconds)}: writing ${duration(p.writeSeconds)}, courier ${duration(p.courierSeconds)}, reading ${duration(p.readSeconds)}${cost(p.shipCost)}`,
        ],
        [
          'Over the network',
          `${duration(p.networkSeconds)} at ${rate(p.networkBytesPerSecond)}${p.bound === 'window' ? ' (held back by round-trip time and TCP window, not the link)' : ''}${cost(p.networkCost)}`,
        ],
        ['Drive speed', `${rate(p.inputs.driveBytesPerSecond)} (${source})`],
        [
          'Break-even size',
          p.crossoverBytes === null
            ? 'none: one way wins at every size'
            : `${fmtBytes(p.crossoverBytes)}: smaller goes faster over the network, larger by drive`,
        ],
      ]),
      h(
        'figure',
        { class: 'chart-box' },
        timeChart(p.curve, b),
        h('figcaption', {}, 'Time against dataset size, both axes logarithmic; the dashed line is the size above.'),
      ),
      h(
        'details',
        {},
        h('summary', {}, 'The chart as a table'),
        dataTable(
          'Time against size',
          ['Size', 'By drive', 'Network'],
          p.curve.map((c) => ({ cells: [fmtBytes(c.bytes), duration(c.shipSeconds), duration(c.networkSeconds)] })),
        ),
      ),
    );
  };
  const go = primary('Compute', () => void busy(go, out, compute, 'The planner could not answer'));
  queueMicrotask(() => go.click());
  return h(
    'div',
    { class: 'view', 'data-view': 'plan' },
    h('h1', {}, 'Planner: ship or send?'),
    h(
      'form',
      { class: 'step-form grid-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) },
      size.el,
      link.el,
      rtt.el,
      streams.el,
      drive.el,
      drives.el,
      courier.el,
      driveCost.el,
      courierCost.el,
      netCost.el,
      actions(go),
    ),
    out,
  );
}
