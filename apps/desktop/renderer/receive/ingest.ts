/** Subscriber step 4: ingest with progress and a Cancel button. */
import { api } from '../api.js';
import { facts, h } from '../ui/dom.js';
import { jobView } from '../ui/job.js';
import { isBucket, s3Facts } from '../ui/s3.js';
import type { Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';

export const ingestStep: Step<ReceiveState> = {
  id: 'ingest',
  title: 'Ingesting',
  render({ state, next, goto }) {
    // The other drives of a set that the check found: ingest needs enough of them.
    const others = (state.report!.set?.found ?? []).filter((f) => f.drive !== state.report!.set!.drive).map((f) => f.path);
    const job = jobView({
      title: 'Ingest progress',
      start: (id, onEvent) =>
        api().ingest(
          id,
          {
            drive: state.drive,
            dest: state.dest,
            ...(state.s3 ? { s3: state.s3 } : {}),
            shipment: state.report!.shipmentId,
            ...(others.length ? { drives: others } : {}),
          },
          onEvent,
        ),
      done: (s) => {
        state.summary = s;
        next();
      },
      cancelled: 'Ingest was cancelled. The destination is as it was before; ingesting again resumes.',
      failed: 'Ingest failed',
      back: { label: 'Back to destination', go: () => goto('dest') },
    });
    return h(
      'div',
      {},
      facts([
        ['From', h('code', {}, state.drive)],
        ...(isBucket(state.dest) ? s3Facts(state.dest, state.s3, 'Into bucket') : [['Into', h('code', {}, state.dest)] as [string, HTMLElement]]),
      ]),
      ...job,
    );
  },
};
