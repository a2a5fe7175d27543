/**
 * Subscriber, taking files: browse the verified shipment one folder at a
 * time and tick the files and folders to take. A breadcrumb says where one
 * is; a ticked folder takes everything below it, so what is inside it shows
 * ticked and fixed. Names are shown escaped (ui/names.ts), as text only.
 */
import type { ListEntry } from '@brickpost/engine/api';
import type { ShipmentFolder } from '../../src/shared/api.js';
import { api } from '../api.js';
import { dataTable, h, replace } from '../ui/dom.js';
import { errorBanner, note } from '../ui/errors.js';
import { bytes, count, mtime } from '../ui/format.js';
import { baseName, printable } from '../ui/names.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';

const SPECIALS: Record<string, string> = { fifo: 'FIFO', socket: 'socket', char: 'character device', block: 'block device' };

/** What an entry is, in words: "folder", "link to docs/a.txt", "hard link of …". */
export function typeText(e: ListEntry): string {
  switch (e.type) {
    case 'dir':
      return 'folder';
    case 'file':
      return e.sparse ? 'file (sparse)' : 'file';
    case 'link':
      return `link to ${printable(e.target ?? '')}`;
    case 'hard':
      return `hard link of ${printable(e.to ?? '')}`;
    case 'special':
      return `special: ${SPECIALS[e.kind ?? ''] ?? 'file'}${e.dev ? ` ${e.dev[0]}, ${e.dev[1]}` : ''}`;
  }
}

/** A path as the person reads it, with '/' after a folder. */
export function shownPath(path: string, type: ListEntry['type']): string {
  return `${printable(path)}${type === 'dir' ? '/' : ''}`;
}

/** The folder above `path` ('' above a top-level entry). */
function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** True when a ticked folder holds `path`. */
function covered(state: ReceiveState, path: string): boolean {
  for (let p = parentOf(path); p !== ''; p = parentOf(p)) if (state.chosen.get(p) === 'dir') return true;
  return false;
}

export const browseStep: Step<ReceiveState> = {
  id: 'browse',
  title: 'Choose what to take',
  render({ state, next, back }) {
    const r = state.report!;
    const crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Where you are in the shipment' });
    const listing = h('div', { 'aria-live': 'polite', 'aria-busy': 'false', 'data-testid': 'listing' });
    const chosenSlot = h('div', { 'data-testid': 'chosen' });
    const slot = h('div', {});
    let generation = 0;

    const open = async (folder: string, focus: boolean): Promise<void> => {
      const gen = ++generation;
      state.folder = folder;
      drawCrumbs();
      listing.setAttribute('aria-busy', 'true');
      // The first folder opened reads the whole manifest into the shipment's browse index; later ones are quick.
      const first = gen === 1 ? ' The first folder of a shipment takes longest: its list of files is indexed once (about 30 s a million files).' : '';
      replace(listing, h('p', { class: 'muted' }, `Reading the folder from the drive…${first}`));
      let f: ShipmentFolder;
      try {
        f = await api().shipmentFolder({ drive: state.drive, shipment: r.shipmentId, folder });
      } catch (e) {
        if (gen !== generation) return;
        replace(listing, errorBanner(e, 'Cannot show that folder'), folder ? actions(secondary('Back to the top folder', () => void open('', true))) : null);
        listing.setAttribute('aria-busy', 'false');
        return;
      }
      if (gen !== generation) return;
      const table = folderTable(f);
      replace(listing, table, f.note ? note(f.note, 'warn') : null);
      listing.setAttribute('aria-busy', 'false');
      if (focus) table.focus();
    };

    const drawCrumbs = (): void => {
      const parts = state.folder === '' ? [] : state.folder.split('/');
      const items: HTMLElement[] = [];
      const top = 'Top of the shipment';
      items.push(
        h(
          'li',
          {},
          parts.length === 0
            ? h('span', { 'aria-current': 'location' }, top)
            : h('button', { type: 'button', class: 'link', onclick: () => void open('', true) }, top),
        ),
      );
      parts.forEach((name, i) => {
        const path = parts.slice(0, i + 1).join('/');
        const last = i === parts.length - 1;
        items.push(
          h(
            'li',
            {},
            last
              ? h('span', { 'aria-current': 'location' }, printable(name))
              : h('button', { type: 'button', class: 'link', onclick: () => void open(path, true) }, printable(name)),
          ),
        );
      });
      const up = secondary('Up one level', () => void open(parentOf(state.folder), true));
      up.disabled = parts.length === 0;
      replace(crumbs, h('ol', {}, ...items), up);
    };

    const tick = (path: string, type: ListEntry['type'], on: boolean): void => {
      state.chosen.delete(path);
      if (on) {
        // A folder takes what is below it: ticks inside it are implied.
        if (type === 'dir') for (const p of [...state.chosen.keys()]) if (p.startsWith(`${path}/`)) state.chosen.delete(p);
        state.chosen.set(path, type);
      }
      drawChosen();
    };

    const folderTable = (f: ShipmentFolder): HTMLElement => {
      const where = f.folder === '' ? 'the top folder' : shownPath(f.folder, 'dir');
      const sorted = [...f.entries].sort((a, b) => Number(b.type === 'dir') - Number(a.type === 'dir'));
      const inTicked = f.folder !== '' && (state.chosen.get(f.folder) === 'dir' || covered(state, f.folder));
      const rows = sorted.map((e) => {
        const name = printable(baseName(e.path));
        const box = h('input', {
          type: 'checkbox',
          name: 'take',
          'aria-label': `Take ${name}${e.type === 'dir' ? ' and everything in it' : ''}`,
          checked: inTicked || state.chosen.has(e.path),
          disabled: inTicked,
          'data-path': printable(e.path),
        });
        box.addEventListener('change', () => tick(e.path, e.type, box.checked));
        const nameCell =
          e.type === 'dir'
            ? h('button', { type: 'button', class: 'link name', 'aria-label': `Open folder ${name}`, onclick: () => void open(e.path, true) }, `${name}/`)
            : h('span', { class: 'name' }, name);
        return {
          props: { 'data-name': name, 'data-type': e.type },
          cells: [box, nameCell, typeText(e), e.type === 'file' ? bytes(e.size) : '—', e.type === 'hard' ? '—' : mtime(e.mtimeNs)],
        };
      });
      const caption = `In ${where}: ${count(f.entries.length + f.more, 'entry', 'entries')}${inTicked ? ', all taken with their folder' : ''}`;
      if (rows.length === 0) return h('p', { class: 'muted', tabindex: -1 }, `${caption}. This folder is empty.`);
      return dataTable(caption, ['Take', 'Name', 'Type', 'Size', 'Modified'], rows);
    };

    const drawChosen = (): void => {
      const list = [...state.chosen.entries()];
      if (list.length === 0) {
        replace(chosenSlot, h('p', { class: 'muted', tabindex: -1 }, 'Nothing chosen yet.'));
        return;
      }
      replace(
        chosenSlot,
        h('h3', { tabindex: -1 }, `Chosen: ${count(list.length, 'entry', 'entries')}`),
        h(
          'ul',
          { class: 'chosen-list' },
          ...list.map(([path, type]) =>
            h(
              'li',
              {},
              h('code', {}, shownPath(path, type)),
              ' ',
              h(
                'button',
                { type: 'button', class: 'link', 'aria-label': `Remove ${shownPath(path, type)} from the chosen entries`, onclick: () => remove(path) },
                'Remove',
              ),
            ),
          ),
        ),
        actions(secondary('Clear the choice', () => remove(null))),
      );
    };

    const remove = (path: string | null): void => {
      if (path === null) state.chosen.clear();
      else state.chosen.delete(path);
      drawChosen();
      chosenSlot.querySelector<HTMLElement>('[tabindex="-1"]')?.focus();
      void open(state.folder, false);
    };

    const go = primary('Next: where to put them', () => {
      if (state.chosen.size === 0) replace(slot, note('Tick at least one file or folder.', 'warn'));
      else next();
    });
    drawChosen();
    void open(state.folder, false);
    return h(
      'div',
      { class: 'browse' },
      h(
        'p',
        { class: 'help' },
        'Open folders to find what you need, and tick the files and folders to take; a ticked folder takes everything in it. Only what you tick is read from the drive, and nothing is ingested.',
      ),
      crumbs,
      listing,
      chosenSlot,
      slot,
      actions(secondary('Back', back), go),
    );
  },
};
