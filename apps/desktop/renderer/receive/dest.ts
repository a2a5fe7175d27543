/** Subscriber step 3: the destination folder, and whether the shipment applies to it. */
import type { DestHistory, VerifyReport } from '@brickpost/engine/api';
import { api } from '../api.js';
import { h, replace } from '../ui/dom.js';
import { note } from '../ui/errors.js';
import { folderField } from '../ui/folder-field.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';

/** One sentence: how this shipment relates to what the destination holds. */
export function applies(r: VerifyReport, hist: DestHistory | null): { text: string; kind: 'info' | 'warn' } {
  if (!hist || hist.shipments.length === 0) {
    return r.seq <= 1
      ? { text: 'A new destination: the whole dataset will be written here.', kind: 'info' }
      : {
          text: `This is shipment ${r.seq} of "${r.dataset}", which carries only changes. A new destination needs the earlier shipments first, unless the folder already holds a copy of the data.`,
          kind: 'warn',
        };
  }
  if (hist.dataset !== r.dataset) return { text: `This folder holds the dataset "${hist.dataset}", not "${r.dataset}". Choose another folder.`, kind: 'warn' };
  const last = hist.shipments[hist.shipments.length - 1]!;
  if (hist.shipments.some((s) => s.shipmentId === r.shipmentId))
    return { text: `Shipment ${r.seq} is already applied here; ingesting again changes nothing.`, kind: 'info' };
  if (r.seq === last.seq + 1)
    return {
      text: `Applies as an incremental update: shipment ${r.seq} on top of shipment ${last.seq}. Unchanged files stay; only changes are written.`,
      kind: 'info',
    };
  if (r.seq <= last.seq) return { text: `This folder is already at shipment ${last.seq}; shipment ${r.seq} is older and will be refused.`, kind: 'warn' };
  return {
    text: `This folder is at shipment ${last.seq}; shipments ${last.seq + 1} to ${r.seq - 1} must be ingested first, unless this one was packed against it.`,
    kind: 'warn',
  };
}

export const destStep: Step<ReceiveState> = {
  id: 'dest',
  title: 'Choose the destination',
  render({ state, next, back }) {
    const field = folderField({
      label: 'Destination folder',
      name: 'dest',
      title: 'Where the files go',
      value: state.dest,
      help: 'The files of the dataset are written here. Files this shipment replaces are kept for rollback.',
    });
    const info = h('div', { 'aria-live': 'polite', 'data-testid': 'applies' });
    const slot = h('div', {});
    let seen = '';
    const look = async (): Promise<void> => {
      const dest = field.value();
      if (!dest || dest === seen) return;
      seen = dest;
      state.history = await api()
        .history({ dest })
        .catch(() => null);
      if (field.value() !== dest) return;
      const a = applies(state.report!, state.history);
      replace(info, note(a.text, a.kind));
    };
    field.input.addEventListener('change', () => void look());
    field.input.addEventListener('blur', () => void look());
    if (state.dest) void look();
    const go = primary('Ingest', () => {
      const dest = field.value();
      if (!dest) {
        replace(slot, note('Choose a destination folder.', 'warn'));
        return;
      }
      state.dest = dest;
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
