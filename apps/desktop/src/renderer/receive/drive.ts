/** Subscriber step 1: choose a drive and run the keyless check. */
import { api } from '../api.js';
import { driveChoices } from '../publish/drives.js';
import { h, jobId, replace } from '../ui/dom.js';
import { errorBanner, note } from '../ui/errors.js';
import { folderField } from '../ui/folder-field.js';
import { progressPanel } from '../ui/progress.js';
import { actions, busy, primary, secondary, type Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';
import { verdictOf, verdictOfError } from './verdict.js';

export const driveStep: Step<ReceiveState> = {
  id: 'drive',
  title: 'Choose the drive',
  render({ state, next }) {
    const chosen: string[] = state.drive ? [state.drive] : [];
    const listSlot = h('div', {});
    const slot = h('div', {});
    const refresh = async (): Promise<void> => {
      try {
        const found = (await api().drives()).filter((d) => d.shipments.length > 0 || d.removable);
        replace(listSlot, driveChoices(found, chosen, 'Drives found', false));
      } catch (e) {
        replace(listSlot, errorBanner(e, 'Cannot list the drives'));
      }
    };
    const field = folderField({ label: 'Or type the drive\'s folder', name: 'drive', title: 'The drive to check', help: 'The top folder of the drive, the one that holds "brickpost/".' });
    field.input.addEventListener('input', () => {
      for (const b of listSlot.querySelectorAll<HTMLInputElement>('input[name=drive-choice]')) b.checked = false;
      chosen.splice(0);
    });
    const go = primary('Check drive', () => {
      const drive = field.value() || chosen[0] || '';
      if (!drive) {
        replace(slot, note('Choose a drive, or type its folder.', 'warn'));
        return;
      }
      const panel = progressPanel('Checking progress');
      replace(slot, panel.el);
      void busy(go, slot, async () => {
        Object.assign(state, { drive, report: null, deep: null, error: null, verdict: null, summary: null });
        try {
          state.report = await api().verify(jobId(), { drive }, panel.update);
          state.verdict = verdictOf(state.report);
        } catch (e) {
          const v = verdictOfError(e);
          if (!v) throw e;
          state.verdict = v;
          state.error = e;
        }
        next();
      }, 'The check could not run');
    });
    void refresh();
    return h('form', { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) }, listSlot, actions(secondary('Refresh', () => void refresh())), field.el, h('p', { class: 'help' }, 'The check reads every file on the drive and compares it with what the publisher signed. It needs no key and changes nothing.'), slot, actions(go));
  },
};
