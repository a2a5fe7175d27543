/** Publisher steps 1–2: the source (a folder or a bucket), then its size and the planner's estimate. */
import type { PlanResult } from '@brickpost/engine/api';
import { api } from '../api.js';
import { facts, h } from '../ui/dom.js';
import { errorBanner, note } from '../ui/errors.js';
import { bytes, count, duration, rate } from '../ui/format.js';
import { placeField } from '../ui/place-field.js';
import { s3Facts } from '../ui/s3.js';
import { actions, busy, primary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

export const sourceStep: Step<PublishState> = {
  id: 'source',
  title: 'Choose what to send',
  render({ state, next }) {
    const field = placeField({
      legend: 'Send from',
      name: 'source',
      folder: { label: 'Source folder', title: 'Folder to send', help: 'Everything inside it is packed. Nothing in it is changed.' },
      bucketHelp: 'The objects under the prefix are packed as files (s3://BUCKET alone: the whole bucket). Nothing in the bucket is changed.',
      value: state.source,
      s3: state.s3,
    });
    const slot = h('div', {});
    const go = primary(
      'Next',
      () =>
        void busy(
          go,
          slot,
          async () => {
            const place = field.value();
            if (!place) return;
            if (field.kind() === 'bucket') {
              if (state.source !== place.where) state.dataset = '';
              Object.assign(state, { source: place.where, s3: place.s3, info: null });
              next();
              return;
            }
            const info = await api().sourceInfo({ path: place.where });
            if (state.source !== info.path) state.dataset = '';
            Object.assign(state, { source: info.path, s3: undefined, info });
            next();
          },
          'Cannot read that folder',
        ),
    );
    return h('form', { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) }, field.el, slot, actions(go));
  },
};

/** The estimate step of a bucket: what will be read, and the planner for a size the user knows. */
function bucketEstimate(state: PublishState, next: () => void, back: () => void): HTMLElement {
  return h(
    'div',
    {},
    facts(s3Facts(state.source, state.s3)),
    note('The objects of a bucket are listed and counted while packing, so their size and the estimate are not known yet.'),
    h('p', {}, h('a', { href: '#/plan' }, 'Open the planner'), ' to compare drives with the network for a size you know.'),
    actions(h('button', { type: 'button', class: 'secondary', onclick: back }, 'Back'), primary('Next', next)),
  );
}

export const estimateStep: Step<PublishState> = {
  id: 'estimate',
  title: 'Size and estimate',
  async render({ state, next, back }) {
    if (state.info === null) return bucketEstimate(state, next, back);
    const info = state.info;
    let plan: PlanResult | null = null;
    let planError: unknown = null;
    try {
      plan = await api().plan({ bytes: info.bytes });
    } catch (e) {
      planError = e;
    }
    return h(
      'div',
      {},
      facts([
        ['Folder', h('code', {}, info.path)],
        ['Size', bytes(info.bytes)],
        ['Contents', `${count(info.files, 'file')} in ${count(info.dirs, 'folder')}`],
      ]),
      plan
        ? h(
            'div',
            { class: 'estimate', 'data-testid': 'estimate' },
            h('h3', {}, 'Ship or send?'),
            facts([
              ['By drive (write, courier, read)', duration(plan.shipSeconds)],
              ['Over the network', duration(plan.networkSeconds)],
            ]),
            h('p', {}, plan.recommendation),
            plan.crossoverBytes !== null ? h('p', { class: 'help' }, `Below ${bytes(plan.crossoverBytes)} the network is faster; above it, drives.`) : null,
            h(
              'p',
              { class: 'help' },
              `Drive speed ${rate(plan.inputs.driveBytesPerSecond)} (${plan.driveSpeedSource === 'measured' ? 'measured on your recent packs' : plan.driveSpeedSource === 'given' ? 'given' : 'a default until a pack is measured'}); network ${Math.round(plan.inputs.linkBitsPerSecond / 1e6)} Mbit/s.`,
            ),
            h('p', {}, h('a', { href: `#/plan?bytes=${info.bytes}` }, 'Open the planner'), ' to change link speed, drives and courier time.'),
          )
        : errorBanner(planError, 'No estimate available'),
      info.files === 0 ? note('The folder is empty: the shipment will carry no files.', 'warn') : null,
      actions(h('button', { type: 'button', class: 'secondary', onclick: back }, 'Back'), primary('Next', next)),
    );
  },
};
