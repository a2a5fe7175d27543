/** Subscriber, taking files: the folder to put them in, then the extract job with progress and Cancel. */
import { api } from '../api.js';
import { facts, h, replace } from '../ui/dom.js';
import { note } from '../ui/errors.js';
import { folderField } from '../ui/folder-field.js';
import { count } from '../ui/format.js';
import { jobView } from '../ui/job.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import { shownPath } from './browse.js';
import type { ReceiveState } from './state.js';

/** At most this many chosen entries are named on a page; the rest are counted. */
const SHOWN = 20;

/** The chosen entries as a list of escaped paths. */
function chosenList(state: ReceiveState): HTMLElement {
  const all = [...state.chosen.entries()];
  return h(
    'ul',
    { class: 'plain' },
    ...all.slice(0, SHOWN).map(([p, t]) => h('li', {}, h('code', {}, shownPath(p, t)))),
    all.length > SHOWN ? h('li', { class: 'muted' }, `and ${count(all.length - SHOWN, 'more entry', 'more entries')}`) : null,
  );
}

export const takeToStep: Step<ReceiveState> = {
  id: 'take-to',
  title: 'Where to put them',
  render({ state, next, back }) {
    const field = folderField({
      label: 'Folder to put them in',
      name: 'take-to',
      title: 'Where the files go',
      value: state.takeTo,
      help: 'Each entry keeps its path inside the shipment: docs/a.txt is written as FOLDER/docs/a.txt. Nothing already in the folder is replaced: if a name is taken, nothing at all is written and the page says which.',
    });
    const slot = h('div', {});
    const go = primary('Take them', () => {
      const to = field.value();
      if (!to) {
        replace(slot, note('Choose a folder to put them in.', 'warn'));
        return;
      }
      state.takeTo = to;
      next();
    });
    return h(
      'form',
      { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) },
      facts([['To take', chosenList(state)]]),
      field.el,
      slot,
      actions(secondary('Back', back), go),
    );
  },
};

export const extractStep: Step<ReceiveState> = {
  id: 'extract',
  title: 'Taking them off the drive',
  render({ state, next, goto }) {
    const r = state.report!;
    const others = (r.set?.found ?? []).filter((f) => f.drive !== r.set!.drive).map((f) => f.path);
    const job = jobView({
      title: 'Progress of taking the files',
      start: (id, onEvent) =>
        api().extract(
          id,
          { drive: state.drive, shipment: r.shipmentId, paths: [...state.chosen.keys()], to: state.takeTo, ...(others.length ? { drives: others } : {}) },
          onEvent,
        ),
      done: (s) => {
        state.taken = s;
        next();
      },
      cancelled: 'Taking the files was cancelled. Files finished before that stay in the folder; nothing in it was replaced.',
      failed: 'The files could not be taken',
      back: { label: 'Back to the folder choice', go: () => goto('take-to') },
    });
    return h(
      'div',
      {},
      facts([
        ['From', h('code', {}, state.drive)],
        ['Into', h('code', {}, state.takeTo)],
        ['Taking', count(state.chosen.size, 'entry', 'entries')],
      ]),
      ...job,
    );
  },
};
