/** Publisher step 5: dataset name, label, parity drives and recovery data. */
import { h, uid } from '../ui/dom.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

function field(label: string, input: HTMLInputElement, help?: string): HTMLElement {
  const id = uid(input.name);
  input.id = id;
  if (help) input.setAttribute('aria-describedby', `${id}-help`);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, help ? h('p', { class: 'help', id: `${id}-help` }, help) : null);
}

export const optionsStep: Step<PublishState> = {
  id: 'options',
  title: 'Options',
  render({ state, next, back }) {
    const base = state.source.split(/[\\/]/).filter(Boolean).pop() ?? '';
    const dataset = h('input', { type: 'text', name: 'dataset', value: state.dataset || base, autocomplete: 'off' });
    const label = h('input', { type: 'text', name: 'label', value: state.label, autocomplete: 'off', placeholder: 'e.g. March 2026' });
    const n = state.drives.length;
    const parity = h('input', { type: 'number', name: 'parity', min: 0, max: Math.max(0, n - 1), value: state.parity ?? (n >= 3 ? 1 : 0) });
    const recovery = h('input', { type: 'number', name: 'recovery', min: 0, max: 100, value: state.recovery });
    const go = primary('Pack', () => {
      state.dataset = dataset.value.trim();
      state.label = label.value.trim();
      state.parity = n > 1 ? Math.max(0, Math.min(n - 1, Number(parity.value) || 0)) : null;
      state.recovery = Math.max(0, Math.min(100, Math.round(Number(recovery.value) || 0)));
      next();
    });
    return h(
      'form',
      { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) },
      field('Dataset name', dataset, 'Subscribers see this name; later shipments of the same dataset must use it too.'),
      field('Shipment label', label, 'Printed on the drive labels and shown when the drive is checked.'),
      n > 1 ? field('Parity drives', parity, `Of the ${n} drives, how many hold parity: any that many drives may be lost and the shipment still arrives.`) : null,
      field('Recovery data (percent)', recovery, 'Extra data on each drive to repair bad sectors on its own. 2 % is a good default.'),
      actions(secondary('Back', back), go),
    );
  },
};
