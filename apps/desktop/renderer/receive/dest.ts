/** Subscriber step 3: the destination (a folder or a bucket), and whether the shipment applies to it. */
import type { DestHistory, VerifyReport } from '@brickpost/engine/api';
import { api } from '../api.js';
import { h, replace } from '../ui/dom.js';
import { note } from '../ui/errors.js';
import { placeField } from '../ui/place-field.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';

/** One sentence: how this shipment relates to what the destination (a folder or a bucket) holds. */
export function applies(r: VerifyReport, hist: DestHistory | null, where: 'folder' | 'bucket' = 'folder'): { text: string; kind: 'info' | 'warn' } {
  const place = where === 'folder' ? 'folder' : 'prefix';
  if (!hist || hist.shipments.length === 0) {
    return r.seq <= 1
      ? { text: 'A new destination: the whole dataset will be written here.', kind: 'info' }
      : {
          text: `This is shipment ${r.seq} of "${r.dataset}", which carries only changes. A new destination needs the earlier shipments first${where === 'folder' ? ', unless the folder already holds a copy of the data' : ''}.`,
          kind: 'warn',
        };
  }
  if (hist.dataset !== r.dataset)
    return { text: `This ${place} holds the dataset "${hist.dataset}", not "${r.dataset}". Choose another ${place}.`, kind: 'warn' };
  const last = hist.shipments[hist.shipments.length - 1]!;
  if (hist.shipments.some((s) => s.shipmentId === r.shipmentId))
    return { text: `Shipment ${r.seq} is already applied here; ingesting again changes nothing.`, kind: 'info' };
  if (r.seq === last.seq + 1)
    return {
      text: `Applies as an incremental update: shipment ${r.seq} on top of shipment ${last.seq}. Unchanged files stay; only changes are written.`,
      kind: 'info',
    };
  if (r.seq <= last.seq) return { text: `This ${place} is already at shipment ${last.seq}; shipment ${r.seq} is older and will be refused.`, kind: 'warn' };
  return {
    text: `This ${place} is at shipment ${last.seq}; shipments ${last.seq + 1} to ${r.seq - 1} must be ingested first, unless this one was packed against it.`,
    kind: 'warn',
  };
}

export const destStep: Step<ReceiveState> = {
  id: 'dest',
  title: 'Choose the destination',
  render({ state, next, back }) {
    const field = placeField({
      legend: 'Ingest into',
      name: 'dest',
      folder: {
        label: 'Destination folder',
        title: 'Where the files go',
        help: 'The files of the dataset are written here. Files this shipment replaces are kept for rollback.',
      },
      bucketHelp:
        'The files are written as objects under the prefix; what the destination holds of brickpost is kept under PREFIX/.brickpost/. Objects this shipment replaces or deletes are copied there for rollback.',
      value: state.dest,
      s3: state.s3,
    });
    const info = h('div', { 'aria-live': 'polite', 'data-testid': 'applies' });
    const slot = h('div', {});
    let seen = '';
    const look = async (): Promise<void> => {
      const kind = field.kind();
      const place = field.peek();
      if (!place?.where) {
        seen = '';
        replace(info);
        return;
      }
      const key = JSON.stringify([kind, place]);
      if (key === seen) return;
      seen = key;
      state.history = await api()
        .history({ dest: place.where, ...(place.s3 ? { s3: place.s3 } : {}) })
        .catch(() => null);
      if (JSON.stringify([field.kind(), field.peek()]) !== key) return;
      const a = applies(state.report!, state.history, kind);
      replace(info, note(a.text, a.kind));
    };
    field.onChange(() => void look());
    field.folder.input.addEventListener('blur', () => void look());
    if (state.dest) void look();
    const go = primary('Ingest', () => {
      const place = field.value();
      if (!place) return;
      if (!place.where) {
        replace(slot, note('Choose a destination folder.', 'warn'));
        return;
      }
      Object.assign(state, { dest: place.where, s3: place.s3 });
      next();
    });
    return h(
      'form',
      { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) },
      field.el,
      info,
      slot,
      actions(secondary('Back', back), go),
    );
  },
};
