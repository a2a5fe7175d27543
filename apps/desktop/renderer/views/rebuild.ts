/**
 * Rebuild a lost drive of a set (#/rebuild): the drives of the set at hand,
 * a new empty drive, and which drive was lost when several are missing;
 * then the job with its progress, and what was written from which drives.
 * Needs no decryption key, only trust in the publisher's key.
 */
import { api } from '../api.js';
import { facts, h, replace } from '../ui/dom.js';
import { note } from '../ui/errors.js';
import { folderField, type FolderField } from '../ui/folder-field.js';
import { bytes, count } from '../ui/format.js';
import { jobView } from '../ui/job.js';
import { actions, primary, secondary } from '../ui/wizard.js';

/** The rebuild form; `from` prefills the drives at hand (from a verify that found a drive missing). */
export function rebuildView(from: string[] = []): HTMLElement {
  const view = h('div', { class: 'view', 'data-view': 'rebuild' });
  const sources: FolderField[] = [];
  const list = h('div', {});
  const addSource = (value = ''): void => {
    const f = folderField({ label: `Drive of the set ${sources.length + 1}`, name: `from-${sources.length + 1}`, title: 'Choose a drive of the set', value });
    sources.push(f);
    list.appendChild(f.el);
  };
  for (const d of from.length ? from : ['', '']) addSource(d);
  const target = folderField({
    label: 'New drive',
    name: 'to',
    title: 'Choose the new, empty drive',
    help: 'An empty drive: the lost drive is written onto it, byte for byte.',
  });
  const member = h('input', { type: 'number', id: 'rebuild-member', name: 'member', min: '1', max: '256', inputmode: 'numeric' });
  const slot = h('div', {});

  function form(): void {
    replace(
      view,
      h('h1', {}, 'Rebuild a lost drive'),
      h(
        'p',
        {},
        'A drive set survives losing drives; this makes it whole again. Give the drives of the set you have (at least as many as it has data drives) and a new, empty drive: the lost drive, data or parity, is written onto it from the others and checked before it counts. No decryption key is needed.',
      ),
      list,
      actions(secondary('Add another drive', () => addSource())),
      target.el,
      h('div', { class: 'field' }, h('label', { for: 'rebuild-member' }, 'Lost drive number (only when several drives are missing)'), member),
      slot,
      actions(primary('Rebuild', start)),
    );
  }

  function start(): void {
    const drives = sources.map((f) => f.value()).filter(Boolean);
    const to = target.value();
    if (drives.length === 0 || !to) {
      replace(slot, note('Give at least one drive of the set and the new drive.', 'warn'));
      return;
    }
    const n = member.value.trim() ? Number(member.value) : undefined;
    replace(
      view,
      h('h1', {}, 'Rebuild a lost drive'),
      ...jobView({
        title: 'Rebuilding the drive',
        start: (id, on) => api().rebuildDrive(id, { from: drives, to, ...(n !== undefined ? { member: n } : {}) }, on),
        done: (s) =>
          replace(
            view,
            h('h1', {}, 'Rebuild a lost drive'),
            h('p', { class: 'banner ok', role: 'status' }, `Drive ${s.drive} of ${s.drives} (${s.kind}) rebuilt and verified.`),
            facts([
              ['Shipment', h('code', {}, s.shipmentId)],
              ['Written to', h('code', {}, s.path)],
              ['From drives', s.from.map((f) => f.drive).join(', ')],
              ['Payload', `${count(s.files, 'file')}, ${bytes(s.bytes)}`],
              [
                'Custody',
                s.custody === 'drive'
                  ? "a 'rebuilt' event is in the drive's custody log"
                  : s.custody === 'catalog'
                    ? "the 'rebuilt' event is in this computer's records only"
                    : 'no custody event (this computer has no keys)',
              ],
            ]),
          ),
        cancelled: 'Cancelled: the new drive holds an unfinished copy (brickpost/ID.part) that no one takes for a drive of the set; rebuild again to continue.',
        failed: 'The drive was not rebuilt',
        back: { label: 'Back', go: form },
      }),
    );
  }

  form();
  return view;
}
