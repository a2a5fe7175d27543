/** Subscriber step 1: choose a drive and run the keyless check. */
import { api, isCode } from '../api.js';
import { h, jobId, replace, uid } from '../ui/dom.js';
import { driveChoices } from '../ui/drive-choices.js';
import { errorBanner, note } from '../ui/errors.js';
import { folderField } from '../ui/folder-field.js';
import { progressPanel } from '../ui/progress.js';
import { actions, busy, primary, secondary, type Step } from '../ui/wizard.js';
import { resetDrive, type ReceiveState } from './state.js';
import { verdictOf, verdictOfError } from './verdict.js';

export const driveStep: Step<ReceiveState> = {
  id: 'drive',
  title: 'Choose the drive',
  render({ state, next }) {
    const chosen: string[] = state.drive ? [state.drive] : [];
    const listSlot = h('div', {});
    const shipSlot = h('div', {});
    const slot = h('div', {});
    let shipment: { drive: string; id: string } | null = null;
    // A drive with several shipments: the user picks one (newest first).
    const offerShipments = async (drive: string): Promise<void> => {
      const l = await api().listFolder({ path: `${drive.replace(/[\\/]+$/, '')}/brickpost` });
      const ids = l.entries
        .filter((e) => e.dir && !e.name.endsWith('.part'))
        .map((e) => e.name)
        .sort()
        .reverse();
      const fs = h('fieldset', { class: 'choices' }, h('legend', {}, 'This drive holds several shipments: choose one'));
      for (const [i, id] of ids.entries()) {
        const rid = uid('ship');
        const r = h('input', { type: 'radio', name: 'shipment', id: rid, value: id, checked: i === 0 });
        r.addEventListener('change', () => (shipment = { drive, id }));
        fs.appendChild(h('div', { class: 'choice' }, r, h('label', { for: rid }, h('code', {}, id), i === 0 ? ' (newest)' : '')));
      }
      shipment = ids[0] ? { drive, id: ids[0] } : null;
      replace(shipSlot, fs);
    };
    const refresh = async (): Promise<void> => {
      try {
        const found = (await api().drives()).filter((d) => d.shipments.length > 0 || d.removable);
        replace(listSlot, driveChoices(found, chosen, 'Drives found', false));
      } catch (e) {
        replace(listSlot, errorBanner(e, 'Cannot list the drives'));
      }
    };
    const field = folderField({
      label: "Or type the drive's folder",
      name: 'drive',
      title: 'The drive to check',
      help: 'The top folder of the drive, the one that holds "brickpost/".',
    });
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
      void busy(
        go,
        slot,
        async () => {
          resetDrive(state, drive);
          try {
            const id = shipment?.drive === drive ? shipment.id : undefined;
            state.report = await api().verify(jobId(), { drive, ...(id ? { shipment: id } : {}) }, panel.update);
            state.verdict = verdictOf(state.report);
          } catch (e) {
            if (isCode(e, 'AMBIGUOUS_SHIPMENT')) {
              await offerShipments(drive);
              replace(slot);
              return;
            }
            const v = verdictOfError(e);
            if (!v) throw e;
            state.verdict = v;
            state.error = e;
          }
          next();
        },
        'The check could not run',
      );
    });
    void refresh();
    return h(
      'form',
      { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) },
      listSlot,
      actions(secondary('Refresh', () => void refresh())),
      field.el,
      shipSlot,
      h('p', { class: 'help' }, 'The check reads every file on the drive and compares it with what the publisher signed. It needs no key and changes nothing.'),
      slot,
      actions(go),
    );
  },
};
