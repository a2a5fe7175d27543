/** The list of drives to choose from: detected drives and folders standing in for drives. */
import type { DetectedDrive } from '../../src/shared/api.js';
import { api } from '../api.js';
import { h, uid } from './dom.js';
import { bytes } from './format.js';

/** One checkbox per drive; `chosen` is kept in the order drives were ticked. */
export function driveChoices(list: DetectedDrive[], chosen: string[], legend: string, multiple: boolean): HTMLFieldSetElement {
  const fs = h('fieldset', { class: 'choices' }, h('legend', {}, legend));
  if (list.length === 0) fs.appendChild(h('p', { class: 'muted' }, 'No drive found. Plug one in and press Refresh, or give a folder below.'));
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
    const what = [d.removable ? 'removable drive' : 'folder', space, d.shipments.length ? `${d.shipments.length} shipment(s) on it` : '']
      .filter(Boolean)
      .join(' · ');
    fs.appendChild(
      h(
        'div',
        { class: 'choice' },
        box,
        h('label', { for: id }, h('span', { class: 'choice-title' }, d.label), ' ', h('code', {}, d.path), h('span', { class: 'muted block' }, what)),
      ),
    );
  }
  return fs;
}

/** The detected drives plus folders the user added, merged by path. */
export async function detectedWithExtra(extra: string[]): Promise<DetectedDrive[]> {
  const found = await api().drives();
  for (const p of extra)
    if (!found.some((d) => d.path === p))
      found.push({ path: p, label: p.split(/[\\/]/).filter(Boolean).pop() ?? p, removable: false, totalBytes: null, freeBytes: null, shipments: [] });
  return found;
}
