/**
 * Subscribers (publisher side): who holds which shipment, who is behind and
 * by how much, and where each drive is; the same report as
 * `brickpost subscribers`, with the same maximum lag (shipments, days) and time.
 */
import type { SubscriberLag, SubscribersReport } from '@brickpost/engine/api';
import { api } from '../api.js';
import { dataTable, h, replace } from '../ui/dom.js';
import { bytes, count, when } from '../ui/format.js';
import { actions, busy, primary } from '../ui/wizard.js';

function field(label: string, name: string, placeholder: string, hint: string): { el: HTMLElement; input: HTMLInputElement } {
  const input = h('input', {
    type: 'text',
    name,
    id: `sub-${name}`,
    placeholder,
    inputmode: name === 'max-shipments' ? 'numeric' : 'text',
    autocomplete: 'off',
  });
  return { el: h('p', { class: 'field' }, h('label', { for: `sub-${name}` }, label), input, h('span', { class: 'muted' }, hint)), input };
}

function lagTable(r: SubscribersReport): HTMLElement {
  const rows = r.subscribers.map((s) => ({
    props: { 'data-subscriber': s.name ?? s.recipient, 'data-past': s.pastMaxLag ? 'true' : 'false', class: s.pastMaxLag ? 'past' : '' },
    cells: [
      s.name ?? h('code', {}, s.recipient),
      s.dataset,
      s.acknowledged ? `#${s.acknowledged.seq} (${when(s.acknowledged.receiptCreated)})` : 'no receipt yet',
      `#${s.newest.seq}`,
      String(s.lag.shipments),
      bytes(s.lag.bytes),
      s.lag.days.toFixed(1),
      s.pastMaxLag ? h('strong', { class: 'flag' }, 'Past the maximum') : s.lag.shipments === 0 ? 'Up to date' : 'Within',
    ],
  }));
  return dataTable('Subscribers, by dataset', ['Subscriber', 'Dataset', 'Acknowledged', 'Newest', 'Behind', 'Bytes', 'Days', 'Lag'], rows);
}

function drivesTable(s: SubscriberLag): HTMLElement {
  const rows = s.drives.map((d) => ({
    props: { 'data-drive': `${d.seq}/${d.drive}`, 'data-state': d.state },
    cells: [
      `#${d.seq}`,
      h('code', {}, d.shipment),
      d.drive,
      d.state,
      [
        d.shippedAt && `shipped ${when(d.shippedAt)}`,
        d.acknowledgedAt && `acknowledged ${when(d.acknowledgedAt)}`,
        d.wipedAt && `wiped ${when(d.wipedAt)}`,
        d.returnedAt && `returned ${when(d.returnedAt)}`,
      ]
        .filter(Boolean)
        .join(', ') || `packed ${when(d.packedAt)}`,
    ],
  }));
  return dataTable(`Drives sent to ${s.name ?? s.recipient} (${s.dataset})`, ['#', 'Shipment', 'Drive', 'Where', 'When'], rows);
}

/** The subscribers view. */
export function subscribersView(): HTMLElement {
  const shipments = field('Maximum lag in shipments', 'max-shipments', 'e.g. 3', 'flag subscribers more shipments behind');
  const days = field('Maximum lag in time', 'max-time', 'e.g. 30d', 'flag subscribers whose oldest unacknowledged shipment is older');
  const now = field('As of', 'now', 'now', 'measure at this time instead (ISO 8601, e.g. 2026-12-01)');
  const out = h('div', { 'aria-live': 'polite' });
  const load = async (): Promise<void> => {
    const maxLag = [shipments.input.value.trim(), days.input.value.trim()].filter((v) => v !== '');
    const at = now.input.value.trim();
    const r = await api().subscribers({ maxLag, ...(at ? { now: at } : {}) });
    if (r.subscribers.length === 0)
      return replace(out, h('p', { class: 'banner' }, 'No subscribers yet: this home has packed nothing for anyone but itself, and imported no receipt.'));
    replace(
      out,
      r.past > 0
        ? h('p', { class: 'banner warn', role: 'alert', 'data-past': String(r.past) }, `${count(r.past, 'subscriber')} past the maximum lag.`)
        : h('p', { class: 'banner ok', role: 'status', 'data-past': '0' }, r.maxLag ? 'Every subscriber is within the maximum lag.' : `As of ${when(r.now)}.`),
      lagTable(r),
      ...r.subscribers.filter((s) => s.drives.length > 0).map(drivesTable),
    );
  };
  const show = primary('Show subscribers', () => void busy(show, out, load, 'Could not read the subscribers'));
  queueMicrotask(() => show.click());
  return h(
    'div',
    { class: 'view', 'data-view': 'subscribers' },
    h('h1', {}, 'Subscribers'),
    h('p', {}, 'Who holds which shipment of the datasets you publish, as their receipts say, and where your drives are.'),
    h('form', { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), show.click()) }, shipments.el, days.el, now.el, actions(show)),
    out,
  );
}
