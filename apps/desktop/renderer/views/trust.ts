/**
 * The trust store: this home's identity, the keys it trusts (publishers,
 * and subscribers with their recipients), adding and removing them.
 */
import type { TrustedKey, WhoAmI } from '@brickpost/engine/api';
import { api } from '../api.js';
import { dataTable, facts, h, replace, uid, type Child } from '../ui/dom.js';
import { errorBanner } from '../ui/errors.js';
import { fingerprint, when } from '../ui/format.js';
import { actions, busy, primary, secondary } from '../ui/wizard.js';

function identityCard(me: WhoAmI | null, reload: () => void): HTMLElement {
  if (me) {
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'me-h' },
      h('h2', { id: 'me-h' }, 'You'),
      facts([
        ['Name', me.name],
        ['Key id', h('code', {}, fingerprint(me.keyId))],
        ['Signing key (give to subscribers)', h('code', { class: 'wrap', 'data-testid': 'my-minisign' }, me.minisignPublicKey)],
        ['Recipient (give to publishers)', h('code', { class: 'wrap', 'data-testid': 'my-recipient' }, me.recipient)],
      ]),
    );
  }
  const id = uid('name');
  const name = h('input', { id, type: 'text', name: 'identity-name', autocomplete: 'name' });
  const slot = h('div', {});
  const make = primary(
    'Create my keys',
    () => void busy(make, slot, async () => (await api().keygen({ name: name.value.trim() || 'me' }), reload()), 'Cannot create keys'),
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'me-h' },
    h('h2', { id: 'me-h' }, 'You'),
    h('p', {}, 'This computer has no keys yet. Create them to send drives and to open drives sent to you.'),
    h('div', { class: 'field' }, h('label', { for: id }, 'Your name, as others will see it'), name),
    slot,
    actions(make),
  );
}

function keyRow(k: TrustedKey, remove: (k: TrustedKey) => void): { props: Record<string, string>; cells: Child[] } {
  return {
    props: { 'data-key-id': k.keyId },
    cells: [
      `${k.name}${k.self ? ' (you)' : ''}`,
      h('code', { class: 'fingerprint' }, fingerprint(k.keyId)),
      h('code', { class: 'wrap' }, k.minisignPublicKey),
      k.recipient !== null ? h('code', { class: 'wrap', 'data-testid': 'trusted-recipient' }, k.recipient) : h('span', { class: 'muted' }, 'none'),
      when(k.addedAt),
      k.self ? '' : h('button', { type: 'button', class: 'secondary', 'aria-label': `Stop trusting ${k.name}`, onclick: () => remove(k) }, 'Remove'),
    ],
  };
}

/** The trust view. */
export function trustView(): HTMLElement {
  const meSlot = h('div', {});
  const listSlot = h('div', { 'aria-live': 'polite' });
  const msg = h('div', {});
  const load = async (): Promise<void> => {
    try {
      replace(
        meSlot,
        identityCard(await api().whoami(), () => void load()),
      );
      const keys = await api().trustList();
      replace(
        listSlot,
        keys.length
          ? dataTable(
              'Keys you trust',
              ['Name', 'Key id (fingerprint)', 'Public key', 'Recipient', 'Added', ''],
              keys.map((k) => keyRow(k, remove)),
            )
          : h('p', { class: 'muted' }, 'You trust no publisher yet.'),
      );
    } catch (e) {
      replace(listSlot, errorBanner(e, 'Cannot read the trust store'));
    }
  };
  const remove = (k: TrustedKey): void => {
    const yes = primary(
      `Stop trusting ${k.name}`,
      () =>
        void busy(
          yes,
          msg,
          async () => (
            await api().trustRemove({ nameOrKeyId: k.keyId }),
            replace(msg, h('p', { class: 'banner ok', role: 'status' }, `Removed ${k.name}.`)),
            await load()
          ),
          'Cannot remove the key',
        ),
    );
    replace(
      msg,
      h(
        'div',
        { class: 'banner warn', role: 'alertdialog', 'aria-label': 'Confirm removal' },
        h('p', {}, `Drives signed by ${k.name} (${fingerprint(k.keyId)}) will show as untrusted.`),
        actions(
          secondary('Keep', () => replace(msg)),
          yes,
        ),
      ),
    );
    yes.focus();
  };
  const keyId = uid('key');
  const nameId = uid('kname');
  const keyInput = h('textarea', { id: keyId, name: 'trust-key', rows: 3, spellcheck: 'false', placeholder: 'RW…', 'aria-describedby': `${keyId}-help` });
  const nameInput = h('input', { id: nameId, type: 'text', name: 'trust-name', autocomplete: 'off' });
  const addMsg = h('div', {});
  const add = primary(
    'Trust this key',
    () =>
      void busy(
        add,
        addMsg,
        async () => {
          const k = await api().trustAdd({ key: keyInput.value, ...(nameInput.value.trim() ? { name: nameInput.value.trim() } : {}) });
          keyInput.value = '';
          nameInput.value = '';
          replace(
            addMsg,
            h(
              'p',
              { class: 'banner ok', role: 'status', 'data-testid': 'trust-added' },
              `Now trusting ${k.name}, key id `,
              h('code', {}, fingerprint(k.keyId)),
              '. Check this id with them by phone or in person.',
            ),
          );
          await load();
        },
        'Cannot add the key',
      ),
  );
  void load();
  return h(
    'div',
    { class: 'view', 'data-view': 'trust' },
    h('h1', {}, 'Trust'),
    meSlot,
    h('section', { 'aria-labelledby': 'keys-h' }, h('h2', { id: 'keys-h' }, 'Keys you trust'), msg, listSlot),
    h(
      'form',
      { class: 'card', 'aria-labelledby': 'add-h', onsubmit: (e: Event) => (e.preventDefault(), add.click()) },
      h('h2', { id: 'add-h' }, 'Add a key'),
      h(
        'div',
        { class: 'field' },
        h('label', { for: keyId }, 'Their public key'),
        keyInput,
        h(
          'p',
          { class: 'help', id: `${keyId}-help` },
          'Paste the line starting with RW, the whole .pub file, or what "brickpost whoami --contact" prints (then their recipient, age1…, is kept too, to send them drives). Get it through a channel you trust.',
        ),
      ),
      h('div', { class: 'field' }, h('label', { for: nameId }, 'Name'), nameInput),
      addMsg,
      actions(add),
    ),
  );
}
