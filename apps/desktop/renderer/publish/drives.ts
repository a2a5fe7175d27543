/** Publisher step 3: the target drives (detected ones, or any folder standing in for a drive). */
import { detectedWithExtra, driveChoices } from '../ui/drive-choices.js';
import { h, replace } from '../ui/dom.js';
import { errorBanner, note } from '../ui/errors.js';
import { folderField } from '../ui/folder-field.js';
import { bytes } from '../ui/format.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

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
    const field = folderField({
      label: 'Add a folder as a drive',
      name: 'add-drive',
      title: 'Folder to use as a drive',
      help: 'A folder works like a drive: copy it onto one later, or use it for testing.',
      extra: add,
    });
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
      h(
        'p',
        { class: 'help' },
        'With several drives the shipment is spread over them and written in parallel; with three or more, one of them holds parity by default, so any one may be lost.',
      ),
      per ? h('p', { class: 'help' }, `The shipment needs about ${bytes(per)} in all, before compression.`) : null,
      slot,
      actions(secondary('Back', back), go),
    );
  },
};
