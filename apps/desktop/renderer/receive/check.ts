/** Subscriber step 2: the verdict of the keyless check, who signed it, and an optional deep check. */
import type { VerifyReport } from '@brickpost/engine/api';
import { api } from '../api.js';
import { facts, h, jobId, replace } from '../ui/dom.js';
import { fingerprint } from '../ui/format.js';
import { progressPanel } from '../ui/progress.js';
import { actions, busy, primary, secondary, type Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';
import { verdictBox, verdictOf } from './verdict.js';

function setLine(s: NonNullable<VerifyReport['set']>): string {
  const base = `drive ${s.drive} of ${s.drives}; ${s.present.length} of them found`;
  return s.recoverable ? `${base}, enough to ingest` : `${base}: connect ${s.needed} more of the set to ingest`;
}

/** The signed creation time, and a warning when it lies in the future. */
function packedFact(note: NonNullable<VerifyReport['packed']>): string | HTMLElement {
  return note.warning ? h('span', { class: 'warn', 'data-testid': 'packed' }, `${note.text}: ${note.warning}`) : note.text;
}

/** Who, what and which shipment a report is about. */
export function reportFacts(r: VerifyReport): HTMLElement {
  const pub = r.publisher;
  return facts([
    ['Publisher', pub.name ? `${pub.name} (trusted)` : pub.trusted ? 'trusted key' : 'unknown: not in your trust store'],
    ['Publisher key id', h('code', { 'data-testid': 'key-id' }, pub.keyId ? fingerprint(pub.keyId) : 'none')],
    ['Dataset', r.dataset || '—'],
    ['Shipment', h('code', {}, r.shipmentId)],
    ['Label', r.label || '—'],
    ...(r.packed ? ([['Packed', packedFact(r.packed)]] as Array<[string, string | HTMLElement]>) : []),
    ['Sequence', r.seq ? (r.seq === 1 ? '1 (the first shipment of the dataset)' : `${r.seq} (applies on top of shipment ${r.seq - 1})`) : '—'],
    ...(r.set ? ([['Drive set', setLine(r.set)]] as Array<[string, string]>) : []),
  ]);
}

function problemList(r: VerifyReport): HTMLElement | null {
  if (r.problems.length === 0) return null;
  return h(
    'details',
    { class: 'problems' },
    h('summary', {}, `${r.problems.length} problem(s) found`),
    h('ul', {}, ...r.problems.slice(0, 50).map((p) => h('li', {}, p.message, p.path ? h('code', { class: 'block' }, p.path) : null))),
  );
}

export const checkStep: Step<ReceiveState> = {
  id: 'verdict',
  title: 'Check result',
  render({ state, next, back, goto }) {
    const r = state.report;
    const v = state.verdict!;
    const deepSlot = h('div', { class: 'deep' });
    const showDeep = (d: VerifyReport): void => {
      const dv = verdictOf(d);
      replace(
        deepSlot,
        h(
          'p',
          { class: `banner ${dv === 'intact' ? 'ok' : 'error'}`, 'data-deep': d.deep, role: 'status' },
          d.deep === 'ok'
            ? `Deep check passed: ${d.chunksChecked.toLocaleString()} chunks decrypted and checked.`
            : `Deep check ${d.deep === 'failed' ? 'failed' : 'was skipped'}.`,
        ),
        problemList(d),
      );
    };
    if (state.deep) showDeep(state.deep);
    const deepBtn = secondary('Deep check (decrypt every chunk)', () => {
      const panel = progressPanel('Deep check progress');
      replace(deepSlot, panel.el);
      void busy(
        deepBtn,
        deepSlot,
        async () => {
          state.deep = await api().verify(jobId(), { drive: state.drive, shipment: r!.shipmentId, deep: true }, panel.update);
          showDeep(state.deep);
        },
        'The deep check could not run',
      );
    });
    const go = primary('Next: choose destination', () => {
      state.mode = 'ingest';
      next();
    });
    if (v !== 'intact') go.disabled = true;
    // Browsing reads the manifest with this home's key: offered for a genuine, intact drive only.
    const browse =
      v === 'intact'
        ? secondary('Browse and take files', () => {
            state.mode = 'take';
            goto('browse');
          })
        : null;
    return h(
      'div',
      {},
      verdictBox(v, r, state.error),
      r ? reportFacts(r) : null,
      r ? problemList(r) : null,
      v === 'untrusted' ? h('p', {}, h('a', { href: '#/trust' }, 'Open Trust'), " to add the publisher's key, then check again.") : null,
      v === 'intact'
        ? h(
            'div',
            {},
            h('p', { class: 'help' }, 'Optional: the deep check decrypts and re-hashes every chunk with your key. Ingest does this anyway as it copies.'),
            actions(deepBtn),
            deepSlot,
          )
        : null,
      v === 'intact'
        ? h(
            'p',
            { class: 'help' },
            'Ingest writes the whole shipment into a destination folder. To take only some files or folders off the drive into any folder, without ingesting, browse it first.',
          )
        : null,
      actions(secondary(v === 'intact' ? 'Back' : 'Check another drive', back), browse, go),
    );
  },
};
