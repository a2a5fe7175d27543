/** Publisher step 7: the shipment packed, its verification report and a printable label per drive. */
import type { PackEntryCounts } from '@brickpost/engine/api';
import { api } from '../api.js';
import { facts, h, replace } from '../ui/dom.js';
import { errorBanner } from '../ui/errors.js';
import { bytes, count, duration } from '../ui/format.js';
import { documentFrame, printButton } from '../ui/frame.js';
import { actions, primary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

/** What a shipment carries, in one sentence: "12 files, 3 folders, 1 symbolic link, 0 hard links, 0 special files; 1 sparse file (4.1 MB of holes, not stored)". */
export function carries(e: PackEntryCounts): string {
  const kinds = [
    count(e.files, 'file'),
    count(e.dirs, 'folder'),
    count(e.links, 'symbolic link'),
    count(e.hardLinks, 'hard link'),
    count(e.specials, 'special file'),
  ];
  const parts = [kinds.join(', '), `${count(e.sparseFiles, 'sparse file')}${e.sparseFiles ? ` (${bytes(e.holeBytes)} of holes, not stored)` : ''}`];
  if (e.withXattrs + e.withAcls > 0)
    parts.push(`${count(e.withXattrs, 'entry', 'entries')} with extended attributes, ${e.withAcls.toLocaleString()} with ACLs`);
  return `${parts.join('; ')}.`;
}

function notShippedCount(e: PackEntryCounts): number {
  return Object.values(e.notShipped).reduce((a, b) => a + b, 0);
}

/** What could not be shipped, by reason, or null when everything was. */
function notShipped(e: PackEntryCounts): HTMLElement | null {
  const reasons = Object.entries(e.notShipped).filter(([, n]) => n > 0);
  if (reasons.length === 0) return null;
  return h(
    'div',
    { class: 'banner warn', 'data-testid': 'not-shipped' },
    h('p', { class: 'banner-title' }, 'Not shipped'),
    h('p', {}, 'These entries of the source could not be shipped; the drives hold everything else.'),
    h('ul', {}, ...reasons.map(([why, n]) => h('li', {}, `${count(n, 'entry', 'entries')}: ${why}.`))),
  );
}

export const doneStep: Step<PublishState> = {
  id: 'done',
  title: 'Done',
  render({ state }) {
    const s = state.summary!;
    const reportSlot = h('div', { class: 'doc-slot', 'data-testid': 'report' }, h('p', { class: 'muted' }, 'Preparing the report…'));
    const labelSlot = h('div', { class: 'doc-slot', 'data-testid': 'label' }, h('p', { class: 'muted' }, 'Preparing the drive labels…'));
    api()
      .report({ target: s.path, shipment: s.shipmentId })
      .then((r) => replace(reportSlot, documentFrame(r.html, `Verification report of shipment ${s.shipmentId}`, 'report')))
      .catch((e: unknown) => replace(reportSlot, errorBanner(e, 'No report')));
    api()
      .label({ drive: state.drives[0]!, shipment: s.shipmentId })
      .then((l) => {
        const f = documentFrame(l.html, `Labels of the ${count(s.paths.length, 'drive')}`, 'label');
        replace(labelSlot, f, actions(printButton(f, 'Print labels')));
      })
      .catch((e: unknown) => replace(labelSlot, errorBanner(e, 'No drive labels')));
    return h(
      'div',
      {},
      h('p', { class: 'banner ok', role: 'status' }, `Shipment ${s.shipmentId} is on ${count(s.paths.length, 'drive')}. Label each drive and ship it.`),
      facts([
        ['Shipment', h('code', { 'data-testid': 'shipment-id' }, s.shipmentId)],
        ['Dataset', `${s.dataset} (shipment ${s.seq}${s.full ? ', complete' : ', changes only'})`],
        ['Files', `${count(s.files, 'file')}, ${bytes(s.bytesIn)}`],
        ['Carries', h('span', { 'data-testid': 'carries' }, carries(s.entries))],
        ['Left out on purpose', s.entries.excluded ? count(s.entries.excluded, 'entry', 'entries') : 'nothing'],
        ['Not shipped', notShippedCount(s.entries) ? `${count(notShippedCount(s.entries), 'entry', 'entries')}, listed below` : 'nothing'],
        ['On the drives', `${bytes(s.bytesOnDrive)} in ${count(s.packs, 'pack')}${s.parity ? `, ${s.parity} parity drive(s)` : ''}`],
        ['Took', duration(s.seconds)],
        ['Folders', h('ul', { class: 'plain' }, ...s.paths.map((p) => h('li', {}, h('code', {}, p))))],
      ]),
      notShipped(s.entries),
      s.notes.length ? h('ul', { class: 'notes' }, ...s.notes.map((n) => h('li', {}, n))) : null,
      h('h3', {}, 'Report'),
      reportSlot,
      h('h3', {}, 'Drive labels'),
      labelSlot,
      actions(primary('Send another', () => (location.hash = '#/'))),
    );
  },
};
