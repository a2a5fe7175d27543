/** Publisher step 6: packing, with live per-drive progress and a Cancel button. */
import type { PackOptions } from '@brickpost/engine/api';
import { api } from '../api.js';
import { facts, h } from '../ui/dom.js';
import { jobView } from '../ui/job.js';
import { isBucket, s3Facts } from '../ui/s3.js';
import type { Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

/** The pack options of the wizard's state. */
export function packOptions(s: PublishState): PackOptions {
  return {
    source: s.source,
    ...(s.s3 ? { s3: s.s3 } : {}),
    drives: s.drives,
    recipients: s.recipients,
    recovery: s.recovery,
    ...(s.self ? {} : { noSelf: true }),
    ...(s.dataset ? { dataset: s.dataset } : {}),
    ...(s.label ? { label: s.label } : {}),
    ...(s.parity !== null ? { parity: s.parity } : {}),
    ...(s.exclude.length ? { exclude: s.exclude } : {}),
    ...(s.excludeCaches ? { excludeCaches: true } : {}),
    ...(s.portable ? { portable: true } : {}),
  };
}

export const runStep: Step<PublishState> = {
  id: 'pack',
  title: 'Packing',
  render({ state, next, goto }) {
    const job = jobView({
      title: 'Packing progress',
      start: (id, onEvent) => api().pack(id, packOptions(state), onEvent),
      done: (summary) => {
        state.summary = summary;
        next();
      },
      cancelled: 'Packing was cancelled. The drives hold no finished shipment; packing again starts over or continues where it stopped.',
      failed: 'Packing failed',
      back: { label: 'Back to options', go: () => goto('options') },
    });
    return h(
      'div',
      {},
      facts([
        ...(isBucket(state.source) ? s3Facts(state.source, state.s3, 'From bucket') : [['From', h('code', {}, state.source)] as [string, HTMLElement]]),
        ['To', h('span', {}, ...state.drives.flatMap((d, i) => [i ? ', ' : '', h('code', {}, d)]))],
      ]),
      ...job,
    );
  },
};
