/** Publisher step 5: dataset name, label, parity drives, recovery data, and what to leave out. */
import { h, uid } from '../ui/dom.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

function field(label: string, input: HTMLInputElement, help?: string): HTMLElement {
  const id = uid(input.name);
  input.id = id;
  if (help) input.setAttribute('aria-describedby', `${id}-help`);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, help ? h('p', { class: 'help', id: `${id}-help` }, help) : null);
}

/** The patterns of a "Leave out" box: one a line, blank lines and `#` comments ignored. */
export function patternLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

function checkbox(name: string, label: string, checked: boolean, help: string): { el: HTMLElement; box: HTMLInputElement } {
  const id = uid(name);
  const box = h('input', { type: 'checkbox', id, name, checked, 'aria-describedby': `${id}-help` });
  return {
    box,
    el: h(
      'div',
      { class: 'choice' },
      box,
      h('label', { for: id }, h('span', { class: 'choice-title' }, label), h('span', { class: 'help block', id: `${id}-help` }, help)),
    ),
  };
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
    const excludeId = uid('exclude');
    const exclude = h('textarea', {
      id: excludeId,
      name: 'exclude',
      rows: 5,
      spellcheck: 'false',
      autocomplete: 'off',
      placeholder: '*.tmp\nbuild/\n/top-level-only',
      'aria-describedby': `${excludeId}-help`,
    });
    exclude.value = state.exclude.join('\n');
    const caches = checkbox(
      'exclude-caches',
      'Leave out cache folders (CACHEDIR.TAG)',
      state.excludeCaches,
      'Folders that hold a CACHEDIR.TAG file, as many programs mark their caches.',
    );
    const portable = checkbox(
      'portable',
      'Refuse names not every system can hold',
      state.portable,
      'Packing stops at a name some systems cannot hold (names that differ only in case or Unicode form, names Windows reserves or cannot hold, names that are not UTF-8), so every subscriber can ingest the drive.',
    );
    const go = primary('Pack', () => {
      state.exclude = patternLines(exclude.value);
      state.excludeCaches = caches.box.checked;
      state.portable = portable.box.checked;
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
      n > 1
        ? field('Parity drives', parity, `Of the ${n} drives, how many hold parity: any that many drives may be lost and the shipment still arrives.`)
        : null,
      field('Recovery data (percent)', recovery, 'Extra data on each drive to repair bad sectors on its own. 2 % is a good default.'),
      h(
        'fieldset',
        { class: 'filters' },
        h('legend', {}, 'What to ship'),
        h(
          'div',
          { class: 'field' },
          h('label', { for: excludeId }, 'Leave out'),
          exclude,
          h(
            'p',
            { class: 'help', id: `${excludeId}-help` },
            'One pattern per line: ',
            h('code', {}, '*.tmp'),
            ' leaves out every name ending in .tmp, ',
            h('code', {}, 'build/'),
            ' every folder named build, ',
            h('code', {}, '/top-level-only'),
            ' only that name at the top of the source folder.',
          ),
        ),
        caches.el,
        portable.el,
      ),
      actions(secondary('Back', back), go),
    );
  },
};
