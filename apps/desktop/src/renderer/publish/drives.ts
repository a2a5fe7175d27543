/** Publisher step 3: the target drives (detected ones, or any folder standing in for a drive). */
import type { DetectedDrive } from '../../shared/api.js';
import { api } from '../api.js';
import { h, replace, uid } from '../ui/dom.js';
import { errorBanner, note } from '../ui/errors.js';
import { folderField } from '../ui/folder-field.js';
import { bytes } from '../ui/format.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

/** One checkbox per drive; `chosen` is kept in the order drives were ticked. */
export function driveChoices(list: DetectedDrive[], chosen: string[], legend: string, multiple: boolean): HTMLFieldSetElement {
  const fs = h('fieldset', { class: 'choices' }, h('legend', {}, legend));
  if (list.length === 0) fs.appendChild(h('p', { class: 'muted' }, 'No removable drive found. Plug one in and press Refresh, or add a folder below.'));
  for (const d of list) {
    const id = uid('drive');
    const box = h('input', { type: multiple ? 'checkbox' : 'radio', name: 'drive-choice', id, value: d.path, checked: chosen.includes(d.path) });
    box.addEventListener('change', () => {
      if (!multiple) chosen.splice(0, chosen.length);
      const i = chosen.indexOf(d.path);
      if (box.checked && i < 0) chosen.push(d.path);
      if (!box.checked && i >= 0) chosen.splice(i, 1);
    });
    const space = d.freeBytes !== null ? `${bytes(d.freeBytes)} free${d.totalBytes ? ` of ${bytes(d.totalBytes)}` : ''}` : '';
    const what = [d.removable ? 'removable drive' : 'folder', space, d.shipments.length ? `${d.shipments.length} shipment(s) on it` : ''].filter(Boolean).join(' · ');
    fs.appendChild(h('div', { class: 'choice' }, box, h('label', { for: id }, h('span', { class: 'choice-title' }, d.label), ' ', h('code', {}, d.path), h('span', { class: 'muted block' }, what))));
  }
  return fs;
}

/** The detected drives plus folders the user added, merged by path. */
export async function detectedWithExtra(extra: string[]): Promise<DetectedDrive[]> {
  const found = await api().drives();
  for (const p of extra) if (!found.some((d) => d.path === p)) found.push({ path: p, label: p.split(/[\\/]/).filter(Boolean).pop() ?? p, removable: false, totalBytes: null, freeBytes: null, shipments: [] });
  return found;
}

export const drivesStep: Step<PublishState> = {
  id: 'drives',
  title: 'Choose the target drives',
  render({ state, next, back }) {
    const listSlot = h('div', {});
    const slot = h('div', {});
    const extra = [...state.drives];
    const refresh = async (): Promise<void> => {
      try {
        replace(listSlot, driveChoices(await detectedWithExtra(extra), state.drives, 'Drives to write', true));
      } catch (e) {
        replace(listSlot, errorBanner(e, 'Cannot list the drives'));
      }
    };
    const add = secondary('Add folder', () => {
      const p = field.value();
      if (!p) return;
      if (!extra.includes(p)) extra.push(p);
      if (!state.drives.includes(p)) state.drives.push(p);
      field.input.value = '';
      void refresh();
    });
    const field = folderField({ label: 'Add a folder as a drive', name: 'add-drive', title: 'Folder to use as a drive', help: 'A folder works like a drive: copy it onto one later, or use it for testing.', extra: add });
    const go = primary('Next', () => {
      if (state.drives.length === 0) replace(slot, note('Choose at least one drive.', 'warn'));
      else next();
    });
    void refresh();
    const per = state.info && state.drives.length ? state.info.bytes : 0;
    return h(
      'div',
      {},
      listSlot,
      actions(secondary('Refresh', () => void refresh())),
      field.el,
      h('p', { class: 'help' }, 'With several drives the shipment is spread over them and written in parallel; with three or more, one of them holds parity by default, so any one may be lost.'),
      per ? h('p', { class: 'help' }, `The shipment needs about ${bytes(per)} in all, before compression.`) : null,
      slot,
      actions(secondary('Back', back), go),
    );
  },
};
