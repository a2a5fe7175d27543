/** Publisher step 7: the shipment packed, its verification report and a printable label per drive. */
import { api } from '../api.js';
import { facts, h, replace } from '../ui/dom.js';
import { errorBanner } from '../ui/errors.js';
import { bytes, count, duration } from '../ui/format.js';
import { documentFrame, printButton } from '../ui/frame.js';
import { actions, primary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

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
        ['On the drives', `${bytes(s.bytesOnDrive)} in ${count(s.packs, 'pack')}${s.parity ? `, ${s.parity} parity drive(s)` : ''}`],
        ['Took', duration(s.seconds)],
        ['Folders', h('ul', { class: 'plain' }, ...s.paths.map((p) => h('li', {}, h('code', {}, p))))],
      ]),
      s.notes.length ? h('ul', { class: 'notes' }, ...s.notes.map((n) => h('li', {}, n))) : null,
      h('h3', {}, 'Report'),
      reportSlot,
      h('h3', {}, 'Drive labels'),
      labelSlot,
      actions(primary('Send another', () => (location.hash = '#/'))),
    );
  },
};
