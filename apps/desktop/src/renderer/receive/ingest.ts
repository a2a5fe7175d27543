/** Subscriber step 4: ingest with progress and a Cancel button. */
import { api, isCode } from '../api.js';
import { facts, h, jobId, replace } from '../ui/dom.js';
import { errorBanner, note } from '../ui/errors.js';
import { progressPanel } from '../ui/progress.js';
import { actions, secondary, type Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';

export const ingestStep: Step<ReceiveState> = {
  id: 'ingest',
  title: 'Ingesting',
  render({ state, next, goto }) {
    const id = jobId();
    const panel = progressPanel('Ingest progress');
    const slot = h('div', {});
    const cancel = secondary('Cancel', () => {
      cancel.disabled = true;
      void api().cancel(id);
    });
    const bar = actions(cancel);
    // The other drives of a set that the check found: ingest needs enough of them.
    const others = (state.report!.set?.found ?? []).filter((f) => f.drive !== state.report!.set!.drive).map((f) => f.path);
    api()
      .ingest(id, { drive: state.drive, dest: state.dest, shipment: state.report!.shipmentId, ...(others.length ? { drives: others } : {}) }, panel.update)
      .then((s) => {
        state.summary = s;
        next();
      })
      .catch((e: unknown) => {
        replace(slot, isCode(e, 'CANCELLED') ? note('Ingest was cancelled. The destination is as it was before; ingesting again resumes.', 'warn') : errorBanner(e, 'Ingest failed'));
        replace(bar, secondary('Back to destination', () => goto('dest')));
      });
    return h('div', {}, facts([['From', h('code', {}, state.drive)], ['Into', h('code', {}, state.dest)]]), panel.el, slot, bar);
  },
};
