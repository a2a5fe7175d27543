/**
 * Publisher step 4: who can open the shipment. Subscribers are the trusted
 * keys that carry an age recipient; a new one is added to the trust store by
 * pasting what `brickpost whoami` prints on their computer (their signing
 * key and recipient). A bare recipient of someone not to be trusted can be
 * added for this shipment only.
 */
import type { TrustedKey, WhoAmI } from '@brickpost/engine/api';
import { api } from '../api.js';
import { h, replace, uid, type Child } from '../ui/dom.js';
import { note } from '../ui/errors.js';
import { fingerprint } from '../ui/format.js';
import { actions, busy, primary, secondary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

/** The `age1…` key in a pasted text (a key file's line or a bare key), or null. */
export function parseRecipient(text: string): string | null {
  const m = /(?:^|\s)(age1[02-9ac-hj-np-z]{58})(?=\s|$)/.exec(text.trim());
  return m ? m[1]! : null;
}

/** A recipient in a list: `age1` with its first and last characters. */
export function shortRecipient(r: string): string {
  return r.length <= 24 ? r : `${r.slice(0, 12)}…${r.slice(-8)}`;
}

function checkbox(state: PublishState, recipient: string, label: Child[], props: Record<string, string> = {}): HTMLElement {
  const id = uid('rcpt');
  const box = h('input', { type: 'checkbox', id, name: 'recipient', value: recipient, checked: state.recipients.includes(recipient), ...props });
  box.addEventListener('change', () => {
    state.recipients = state.recipients.filter((r) => r !== recipient);
    if (box.checked) state.recipients.push(recipient);
  });
  return h('div', { class: 'choice' }, box, h('label', { for: id }, ...label));
}

function choices(state: PublishState, me: WhoAmI | null, keys: TrustedKey[]): HTMLElement {
  const fs = h('fieldset', { class: 'choices' }, h('legend', {}, 'Recipients'));
  const selfId = uid('self');
  const self = h('input', { type: 'checkbox', id: selfId, name: 'self', checked: state.self });
  self.addEventListener('change', () => (state.self = self.checked));
  const mine = me ? ` (${me.name}, key id ${fingerprint(me.keyId)})` : '';
  fs.appendChild(
    h(
      'div',
      { class: 'choice' },
      self,
      h('label', { for: selfId }, h('span', { class: 'choice-title' }, 'Me'), `${mine}, so I can check the drives deeply and restore from them`),
    ),
  );
  const subscribers = keys.filter((k) => !k.self && k.recipient !== null);
  for (const k of subscribers) {
    const r = k.recipient!;
    fs.appendChild(
      checkbox(
        state,
        r,
        [
          h('span', { class: 'choice-title' }, k.name),
          ' key id ',
          h('code', {}, fingerprint(k.keyId)),
          ' recipient ',
          h('code', { title: r }, shortRecipient(r)),
        ],
        { 'data-key-id': k.keyId },
      ),
    );
  }
  const known = new Set(keys.map((k) => k.recipient));
  for (const r of state.recipients.filter((x) => !known.has(x))) {
    fs.appendChild(checkbox(state, r, [h('span', { class: 'choice-title' }, 'Not in the trust store'), ' ', h('code', { class: 'wrap' }, r)]));
  }
  if (subscribers.length === 0) fs.appendChild(h('p', { class: 'muted' }, 'No subscriber in your trust store has a recipient yet. Add one below.'));
  const without = keys.filter((k) => !k.self && k.recipient === null);
  if (without.length > 0) {
    fs.appendChild(
      h(
        'p',
        { class: 'muted' },
        `Trusted without a recipient, so not listed: ${without.map((k) => k.name).join(', ')}. Paste their whoami text below to add it.`,
      ),
    );
  }
  return fs;
}

export const recipientsStep: Step<PublishState> = {
  id: 'recipients',
  title: 'Choose who can open it',
  async render({ state, next, back }) {
    const me = await api().whoami();
    let keys = await api().trustList();
    const listSlot = h('div', { 'aria-live': 'polite' });
    const slot = h('div', {});
    const draw = (): void => replace(listSlot, choices(state, me, keys));

    const contactId = uid('contact');
    const nameId = uid('cname');
    const contactInput = h('textarea', {
      id: contactId,
      name: 'contact',
      rows: 4,
      spellcheck: 'false',
      placeholder: 'name  …\nrecipient  age1…\npublic key  RW…',
      'aria-describedby': `${contactId}-help`,
    });
    const nameInput = h('input', { id: nameId, type: 'text', name: 'contact-name', autocomplete: 'off' });
    const addMsg = h('div', {});
    const add = secondary('Add subscriber', () => {
      if (parseRecipient(contactInput.value) === null) {
        replace(
          addMsg,
          note(
            'That text has no recipient (a word starting with "age1"). Ask the subscriber for what "brickpost whoami --contact" prints, or what their trust view shows.',
            'warn',
          ),
        );
        return;
      }
      void busy(
        add,
        addMsg,
        async () => {
          const name = nameInput.value.trim();
          const k = await api().trustAdd({ key: contactInput.value, ...(name ? { name } : {}) });
          keys = await api().trustList();
          if (k.recipient !== null && !state.recipients.includes(k.recipient)) state.recipients.push(k.recipient);
          contactInput.value = '';
          nameInput.value = '';
          draw();
          replace(
            addMsg,
            h(
              'p',
              { class: 'banner ok', role: 'status', 'data-testid': 'subscriber-added' },
              `Added ${k.name} to your trust store, key id `,
              h('code', {}, fingerprint(k.keyId)),
              '. Check this id with them by phone or in person.',
            ),
          );
        },
        'Cannot add the subscriber',
      );
    });

    const bareId = uid('bare');
    const bareInput = h('input', { id: bareId, type: 'text', name: 'recipient-key', spellcheck: 'false', autocomplete: 'off', placeholder: 'age1…' });
    const bareMsg = h('div', {});
    const addBare = secondary('Add for this shipment', () => {
      const r = parseRecipient(bareInput.value);
      if (!r) {
        replace(bareMsg, note('That is not an age recipient: it starts with "age1" and has 62 characters.', 'warn'));
        return;
      }
      replace(bareMsg);
      if (!state.recipients.includes(r)) state.recipients.push(r);
      bareInput.value = '';
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
        h('legend', {}, 'Add a subscriber'),
        h(
          'div',
          { class: 'field' },
          h('label', { for: contactId }, 'Their keys'),
          contactInput,
          h(
            'p',
            { class: 'help', id: `${contactId}-help` },
            'Paste what "brickpost whoami --contact" prints on their computer: their recipient (age1…) and public key (RW…). They are added to your trust store, so their receipts are accepted too. Get the text through a channel you trust.',
          ),
        ),
        h('div', { class: 'field' }, h('label', { for: nameId }, 'Name (for you; default: the name in the text)'), nameInput),
        addMsg,
        actions(add),
      ),
      h(
        'details',
        { class: 'add-box' },
        h('summary', {}, 'A recipient outside the trust store'),
        h('div', { class: 'field' }, h('label', { for: bareId }, 'Age recipient (age1…), for this shipment only, not remembered'), bareInput),
        bareMsg,
        actions(addBare),
      ),
      slot,
      actions(secondary('Back', back), go),
    );
  },
};
