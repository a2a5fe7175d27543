/** Publisher steps 1–2: the source folder, then its size and the planner's estimate. */
import type { PlanResult } from '@brickpost/engine/api';
import { api } from '../api.js';
import { facts, h } from '../ui/dom.js';
import { errorBanner, note } from '../ui/errors.js';
import { folderField } from '../ui/folder-field.js';
import { bytes, count, duration, rate } from '../ui/format.js';
import { actions, busy, primary, type Step } from '../ui/wizard.js';
import type { PublishState } from './state.js';

export const sourceStep: Step<PublishState> = {
  id: 'source',
  title: 'Choose the folder to send',
  render({ state, next }) {
    const field = folderField({
      label: 'Source folder',
      name: 'source',
      title: 'Folder to send',
      value: state.source,
      help: 'Everything inside it is packed. Nothing in it is changed.',
    });
    const slot = h('div', {});
    const go = primary(
      'Next',
      () =>
        void busy(
          go,
          slot,
          async () => {
            const info = await api().sourceInfo({ path: field.value() });
            if (state.source !== info.path) state.dataset = '';
            Object.assign(state, { source: info.path, info });
            next();
          },
          'Cannot read that folder',
        ),
    );
    return h('form', { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), go.click()) }, field.el, slot, actions(go));
  },
};

export const estimateStep: Step<PublishState> = {
  id: 'estimate',
  title: 'Size and estimate',
  async render({ state, next, back }) {
    const info = state.info!;
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
