/**
 * Publisher step 4: who can open the shipment. Recipients are age public
 * keys (`age1…`) that subscribers send; the app remembers the ones added,
 * with a name, in this browser's storage.
 */
import { h, replace, uid } from '../ui/dom.js';
import { note } from '../ui/errors.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

interface Known {
  name: string;
  recipient: string;
}

const KEY = 'brickpost.recipients';

function load(): Known[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((k) => typeof k?.name === 'string' && typeof k?.recipient === 'string') : [];
  } catch {
    return [];
  }
}

function save(list: Known[]): void {
  localStorage.setItem(KEY, JSON.stringify(list));
}

/** The `age1…` key in a pasted text (a key file's line or a bare key), or null. */
export function parseRecipient(text: string): string | null {
  const m = /\bage1[02-9ac-hj-np-z]{58}\b/.exec(text.trim());
  return m ? m[0] : null;
}

export const recipientsStep: Step<PublishState> = {
  id: 'recipients',
  title: 'Choose who can open it',
  render({ state, next, back }) {
    const known = load();
    for (const r of state.recipients) if (!known.some((k) => k.recipient === r)) known.push({ name: 'recipient', recipient: r });
    const listSlot = h('div', {});
    const slot = h('div', {});
    const draw = (): void => {
      const fs = h('fieldset', { class: 'choices' }, h('legend', {}, 'Recipients'));
      const selfId = uid('self');
      const self = h('input', { type: 'checkbox', id: selfId, name: 'self', checked: state.self });
      self.addEventListener('change', () => (state.self = self.checked));
      fs.appendChild(h('div', { class: 'choice' }, self, h('label', { for: selfId }, 'Me (this computer\'s key), so I can check the drives deeply and restore from them')));
      for (const k of known) {
        const id = uid('rcpt');
        const box = h('input', { type: 'checkbox', id, name: 'recipient', value: k.recipient, checked: state.recipients.includes(k.recipient) });
        box.addEventListener('change', () => {
          state.recipients = state.recipients.filter((r) => r !== k.recipient);
          if (box.checked) state.recipients.push(k.recipient);
        });
        fs.appendChild(h('div', { class: 'choice' }, box, h('label', { for: id }, h('span', { class: 'choice-title' }, k.name), ' ', h('code', { class: 'wrap' }, k.recipient))));
      }
      replace(listSlot, fs);
    };
    const keyId = uid('paste');
    const nameId = uid('name');
    const keyInput = h('textarea', { id: keyId, name: 'recipient-key', rows: 2, spellcheck: 'false', placeholder: 'age1…' });
    const nameInput = h('input', { id: nameId, type: 'text', name: 'recipient-name', autocomplete: 'off' });
    const add = secondary('Add recipient', () => {
      const r = parseRecipient(keyInput.value);
      if (!r) {
        replace(slot, note('That is not an age recipient: it starts with "age1" and has 62 characters. Ask the subscriber for the line "brickpost whoami" prints.', 'warn'));
        return;
      }
      replace(slot);
      const name = nameInput.value.trim() || `recipient ${known.length + 1}`;
      if (!known.some((k) => k.recipient === r)) known.push({ name, recipient: r });
      if (!state.recipients.includes(r)) state.recipients.push(r);
      save(known.filter((k) => k.name !== 'recipient' || state.recipients.includes(k.recipient)));
      keyInput.value = '';
      nameInput.value = '';
      draw();
    });
    const go = primary('Next', () => {
      if (!state.self && state.recipients.length === 0) replace(slot, note('Choose at least one recipient, or yourself.', 'warn'));
      else next();
    });
    draw();
    return h(
      'div',
      {},
      listSlot,
      h(
        'fieldset',
        { class: 'add-box' },
        h('legend', {}, 'Add a recipient'),
        h('div', { class: 'field' }, h('label', { for: keyId }, 'Their public key (age1…)'), keyInput),
        h('div', { class: 'field' }, h('label', { for: nameId }, 'Name (for you)'), nameInput),
        actions(add),
      ),
      slot,
      actions(secondary('Back', back), go),
    );
  },
};
