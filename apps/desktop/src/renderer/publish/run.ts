/** Publisher step 6: packing, with live per-drive progress and a Cancel button. */
import type { PackOptions } from '@brickpost/engine/api';
import { api, isCode } from '../api.js';
import { facts, h, jobId, replace } from '../ui/dom.js';
import { errorBanner, note } from '../ui/errors.js';
import { progressPanel } from '../ui/progress.js';
import { actions, secondary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

/** The pack options of the wizard's state. */
export function packOptions(s: PublishState): PackOptions {
  return {
    source: s.source,
    drives: s.drives,
    recipients: s.recipients,
    recovery: s.recovery,
    ...(s.self ? {} : { noSelf: true }),
    ...(s.dataset ? { dataset: s.dataset } : {}),
    ...(s.label ? { label: s.label } : {}),
    ...(s.parity !== null ? { parity: s.parity } : {}),
  };
}

export const runStep: Step<PublishState> = {
  id: 'pack',
  title: 'Packing',
  render({ state, next, goto }) {
    const id = jobId();
    const panel = progressPanel('Packing progress');
    const slot = h('div', {});
    const cancel = secondary('Cancel', () => {
      cancel.disabled = true;
      void api().cancel(id);
    });
    const bar = actions(cancel);
    const opts = packOptions(state);
    api()
      .pack(id, opts, panel.update)
      .then((summary) => {
        state.summary = summary;
        next();
      })
      .catch((e: unknown) => {
        replace(slot, isCode(e, 'CANCELLED') ? note('Packing was cancelled. The drives hold no finished shipment; packing again starts over or continues where it stopped.', 'warn') : errorBanner(e, 'Packing failed'));
        replace(bar, secondary('Back to options', () => goto('options')));
      });
    return h(
      'div',
      {},
      facts([
        ['From', h('code', {}, state.source)],
        ['To', h('span', {}, ...state.drives.flatMap((d, i) => [i ? ', ' : '', h('code', {}, d)]))],
      ]),
      panel.el,
      slot,
      bar,
    );
  },
};
