/**
 * A folder field: a labelled text box and a Choose button. In Electron the
 * button opens the native dialog; in a browser (chooseFolder returns null) it
 * opens a small picker that browses with listFolder.
 */
import { api } from '../api.js';
import { h, replace, uid } from './dom.js';
import { errorBanner } from './errors.js';

export interface FolderField {
  el: HTMLElement;
  input: HTMLInputElement;
  value(): string;
}

/** A folder field labelled `label`; `name` becomes the input's name (tests find it by it); `extra`: a button after Choose. */
export function folderField(opts: { label: string; name: string; title: string; value?: string; help?: string; extra?: HTMLElement }): FolderField {
  const id = uid(opts.name);
  const input = h('input', {
    type: 'text',
    id,
    name: opts.name,
    value: opts.value ?? '',
    autocomplete: 'off',
    spellcheck: 'false',
    class: 'path',
    'aria-describedby': opts.help ? `${id}-help` : null,
  });
  const picker = h('div', { class: 'picker', hidden: true, role: 'group', 'aria-label': `Browse for ${opts.label.toLowerCase()}` });
  const choose = h('button', { type: 'button', class: 'secondary', onclick: () => void open() }, 'Choose…');

  async function open(): Promise<void> {
    const chosen = await api()
      .chooseFolder({ title: opts.title })
      .catch(() => null);
    if (chosen) {
      input.value = chosen;
      input.dispatchEvent(new Event('change'));
      return;
    }
    picker.hidden = false;
    await browse(input.value.trim() || undefined);
  }

  async function browse(path: string | undefined): Promise<void> {
    try {
      const l = await api().listFolder(path ? { path } : {});
      const list = h('ul', { class: 'picker-list' });
      for (const e of l.entries.filter((x) => x.dir)) {
        const child = l.path.endsWith('/') || l.path.endsWith('\\') ? l.path + e.name : `${l.path}/${e.name}`;
        list.appendChild(h('li', {}, h('button', { type: 'button', class: 'link', onclick: () => void browse(child) }, `${e.name}/`)));
      }
      if (!list.firstChild) list.appendChild(h('li', { class: 'muted' }, 'No folders inside.'));
      replace(
        picker,
        h('p', { class: 'picker-path' }, 'In: ', h('code', {}, l.path)),
        h(
          'div',
          { class: 'row' },
          l.parent ? h('button', { type: 'button', class: 'secondary', onclick: () => void browse(l.parent!) }, 'Up one level') : null,
          h('button', { type: 'button', class: 'secondary', onclick: () => use(l.path) }, 'Use this folder'),
          h('button', { type: 'button', class: 'link', onclick: () => (picker.hidden = true) }, 'Close'),
        ),
        list,
      );
    } catch (e) {
      replace(
        picker,
        errorBanner(e, 'Cannot open that folder'),
        h('button', { type: 'button', class: 'secondary', onclick: () => void browse(undefined) }, 'Start from home'),
      );
    }
  }

  function use(p: string): void {
    input.value = p;
    picker.hidden = true;
    input.dispatchEvent(new Event('change'));
    input.focus();
  }

  const el = h(
    'div',
    { class: 'field folder-field' },
    h('label', { for: id }, opts.label),
    h('div', { class: 'row' }, input, choose, opts.extra ?? null),
    opts.help ? h('p', { class: 'help', id: `${id}-help` }, opts.help) : null,
    picker,
  );
  return { el, input, value: () => input.value.trim() };
}
