/** History of a destination: the shipments applied, and rollback to an earlier one. */
import type { DestHistory } from '@brickpost/engine/api';
import { api } from '../api.js';
import { dataTable, facts, h, replace } from '../ui/dom.js';
import { folderField } from '../ui/folder-field.js';
import { bytes, fingerprint, when } from '../ui/format.js';
import { actions, busy, primary, secondary } from '../ui/wizard.js';

function table(hist: DestHistory, onRollback: (to: string, seq: number) => void): HTMLElement {
  const rows = hist.shipments.map((s, i) => {
    // Rolling back to s undoes every later shipment: each needs its undo area.
    const canReturn = i < hist.shipments.length - 1 && hist.shipments.slice(i + 1).every((x) => x.undoable);
    return {
      props: { 'data-shipment': s.shipmentId },
      cells: [
        String(s.seq),
        h('code', {}, s.shipmentId),
        s.label || '—',
        when(s.appliedAt),
        `${s.files.toLocaleString()} files, ${bytes(s.bytes)}`,
        i === hist.shipments.length - 1 ? 'current' : canReturn ? h('button', { type: 'button', class: 'secondary', onclick: () => onRollback(s.shipmentId, s.seq) }, `Roll back to ${s.seq}`) : 'undo data no longer kept',
      ],
    };
  });
  return dataTable('Shipments applied, oldest first', ['#', 'Shipment', 'Label', 'Applied', 'Size', 'Rollback'], rows);
}

/** An ingest or rollback under way or interrupted: what DEST may hold meanwhile, and a button that finishes it. */
function unfinished(hist: DestHistory, onFinish: () => Promise<void>): HTMLElement {
  const p = hist.inProgress!;
  const slot = h('div', {});
  const finish = primary('Finish it now', () => void busy(finish, slot, onFinish, 'Could not finish it'));
  return h('div', { class: 'banner warn', role: 'alert', 'data-in-progress': p.kind }, ...p.lines.map((l) => h('p', {}, l)), ...(p.running ? [] : [actions(finish)]), slot);
}

/** The history view; `dest` prefills the folder (from #/history?dest=…). */
export function historyView(dest = ''): HTMLElement {
  const field = folderField({ label: 'Destination folder', name: 'history-dest', title: 'A destination folder', value: dest });
  const out = h('div', { 'aria-live': 'polite' });
  const confirmSlot = h('div', {});
  const load = async (): Promise<void> => {
    const hist = await api().history({ dest: field.value() });
    replace(confirmSlot);
    replace(
      out,
      ...(hist.inProgress
        ? [
            unfinished(hist, async () => {
              const r = await api().resume({ dest: field.value() });
              await load();
              confirmSlot.appendChild(h('p', { class: 'banner ok', role: 'status' }, `Finished ${r.finished ?? 'the interrupted job'}.`));
            }),
          ]
        : []),
      facts([
        ['Dataset', hist.dataset],
        ['Publisher key id', h('code', {}, fingerprint(hist.publisherKeyId))],
        ['Rollback reach', `the last ${hist.keepUndo} shipment(s)`],
      ]),
      table(hist, (to, seq) => confirm(to, seq)),
    );
  };
  const confirm = (to: string, seq: number): void => {
    const yes = primary(`Roll back to shipment ${seq}`, () =>
      void busy(yes, confirmSlot, async () => {
        const r = await api().rollback({ dest: field.value(), to });
        await load();
        confirmSlot.appendChild(h('p', { class: 'banner ok', role: 'status' }, `Rolled back from shipment ${r.from.seq} to ${r.to.seq}.`));
      }, 'Rollback failed'),
    );
    replace(
      confirmSlot,
      h('div', { class: 'banner warn', role: 'alertdialog', 'aria-label': 'Confirm rollback' }, h('p', {}, `Return ${field.value()} to how it was after shipment ${seq}? Later shipments are undone; files they changed are put back from the undo area.`), actions(secondary('Keep as it is', () => replace(confirmSlot)), yes)),
    );
    yes.focus();
  };
  const show = primary('Show history', () => void busy(show, out, load, 'No history'));
  if (dest) queueMicrotask(() => show.click());
  return h(
    'div',
    { class: 'view', 'data-view': 'history' },
    h('h1', {}, 'History and rollback'),
    h('form', { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), show.click()) }, field.el, actions(show)),
    confirmSlot,
    out,
  );
}
