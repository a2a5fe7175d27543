/** History of a destination (a folder or a bucket): the shipments applied, rollback to any kept one, and (for a folder) pins. */
import type { DestHistory, S3Options } from '@brickpost/engine/api';
import { api } from '../api.js';
import { dataTable, facts, h, replace } from '../ui/dom.js';
import { bytes, fingerprint, when } from '../ui/format.js';
import { placeField, type Place } from '../ui/place-field.js';
import { isBucket } from '../ui/s3.js';
import { actions, busy, primary, secondary } from '../ui/wizard.js';

/** What a row can ask for: rollback to it, pinning it, removing one of its pins. */
interface RowActions {
  rollback: (to: string, seq: number) => void;
  pin: (to: string, seq: number) => void;
  unpin: (name: string) => void;
}

/** A table of the shipments; a bucket's has no pins column (pins are for folders). */
function table(hist: DestHistory, on: RowActions, bucket: boolean): HTMLElement {
  const rows = hist.shipments.map((s, i) => {
    const current = i === hist.shipments.length - 1;
    const pins = s.pins.map((name) =>
      h(
        'span',
        { class: 'pin', 'data-pin': name },
        `📌 ${name} `,
        h('button', { type: 'button', class: 'secondary', 'data-unpin': name, 'aria-label': `Unpin ${name}`, onclick: () => on.unpin(name) }, 'Unpin'),
      ),
    );
    const pin = s.kept
      ? [h('button', { type: 'button', class: 'secondary', 'data-pin-shipment': String(s.seq), onclick: () => on.pin(s.shipmentId, s.seq) }, 'Pin…')]
      : [];
    return {
      props: { 'data-shipment': s.shipmentId, 'data-kept': String(s.kept) },
      cells: [
        String(s.seq),
        h('code', {}, s.shipmentId),
        s.label || '—',
        when(s.appliedAt),
        `${s.files.toLocaleString()} files, ${bytes(s.bytes)}`,
        s.undoable ? bytes(s.undoBytes) : '—',
        ...(bucket ? [] : [h('span', {}, ...pins, ...pin)]),
        current
          ? 'current'
          : s.kept
            ? h(
                'button',
                { type: 'button', class: 'secondary', 'data-rollback': String(s.seq), onclick: () => on.rollback(s.shipmentId, s.seq) },
                `Roll back to ${s.seq}`,
              )
            : 'undo data no longer kept',
      ],
    };
  });
  const headers = bucket
    ? ['#', 'Shipment', 'Label', 'Applied', 'Size', 'Undo data', 'Rollback']
    : ['#', 'Shipment', 'Label', 'Applied', 'Size', 'Undo data', 'Pins', 'Rollback'];
  return dataTable('Shipments applied, oldest first', headers, rows);
}

/** What DEST keeps for rollback, in words (a bucket keeps the last N or all; pins and days are for folders). */
function reach(hist: DestHistory, bucket: boolean): string {
  const rule = hist.keepAll
    ? 'every shipment'
    : `the last ${hist.keepUndo} shipment(s)${hist.keepDays !== null ? ` and those of the last ${hist.keepDays} days` : ''}`;
  if (bucket) return `${rule}; ${bytes(hist.undoBytes)} of undo objects in the bucket (pins are for folder destinations)`;
  const pins = hist.pins.length ? `, and everything after ${hist.pins.length === 1 ? 'the pin' : `${hist.pins.length} pins`}` : '';
  return `${rule}${pins}; ${bytes(hist.undoBytes)} of undo data on disk`;
}

/** How far behind the newest shipment seen on a drive DEST is, as history says it. */
function behind(n: NonNullable<DestHistory['newestSeen']>): string {
  const seen = `seq ${n.newestSeq}, seen ${when(n.seenAt)}`;
  return n.behind > 0 ? `${n.behind} shipment${n.behind === 1 ? '' : 's'} behind the newest seen (${seen})` : `up to date with the newest seen (${seen})`;
}

/** An ingest or rollback under way or interrupted: what DEST may hold meanwhile, and a button that finishes it. */
function unfinished(hist: DestHistory, onFinish: () => Promise<void>): HTMLElement {
  const p = hist.inProgress!;
  const slot = h('div', {});
  const finish = primary('Finish it now', () => void busy(finish, slot, onFinish, 'Could not finish it'));
  return h(
    'div',
    { class: 'banner warn', role: 'alert', 'data-in-progress': p.kind },
    ...p.lines.map((l) => h('p', {}, l)),
    ...(p.running ? [] : [actions(finish)]),
    slot,
  );
}

/** The history view; `dest` prefills the folder or bucket, `s3` how to reach a bucket (from #/history?dest=…&endpoint=…&profile=…). */
export function historyView(dest = '', s3?: S3Options): HTMLElement {
  const place = placeField({
    legend: 'Destination',
    name: 'history-dest',
    folder: { label: 'Destination folder', title: 'A destination folder' },
    bucketHelp: 'The prefix ingested into (s3://BUCKET/PREFIX): its history is read from PREFIX/.brickpost/.',
    value: dest,
    s3,
  });
  const out = h('div', { 'aria-live': 'polite' });
  const confirmSlot = h('div', {});
  // The place whose history is shown: rollback, resume and pins act on it, not on fields edited since.
  let shown: Place = { where: '' };
  /** DEST and, for a bucket, how to reach it, as the engine's calls take them. */
  const at = (): { dest: string; s3?: S3Options } => ({ dest: shown.where, ...(shown.s3 ? { s3: shown.s3 } : {}) });
  const load = async (): Promise<void> => {
    const where = place.value();
    if (!where) return;
    const hist = await api().history({ dest: where.where, ...(where.s3 ? { s3: where.s3 } : {}) });
    shown = where;
    const bucket = isBucket(where.where);
    replace(confirmSlot);
    replace(
      out,
      ...(hist.inProgress
        ? [
            unfinished(hist, async () => {
              const r = await api().resume(at());
              await load();
              confirmSlot.appendChild(h('p', { class: 'banner ok', role: 'status' }, `Finished ${r.finished ?? 'the interrupted job'}.`));
            }),
          ]
        : []),
      facts([
        ['Dataset', hist.dataset],
        ['Publisher key id', h('code', {}, fingerprint(hist.publisherKeyId))],
        ['Rollback reach', reach(hist, bucket)],
        ...(hist.newestSeen ? [['Newest seen', behind(hist.newestSeen)] as [string, string]] : []),
      ]),
      table(hist, { rollback: (to, seq) => confirm(to, seq), pin: (to, seq) => askPin(to, seq), unpin: (name) => void unpin(name) }, bucket),
    );
  };
  const confirm = (to: string, seq: number): void => {
    const yes = primary(
      `Roll back to shipment ${seq}`,
      () =>
        void busy(
          yes,
          confirmSlot,
          async () => {
            const r = await api().rollback({ ...at(), to });
            await load();
            confirmSlot.appendChild(h('p', { class: 'banner ok', role: 'status' }, `Rolled back from shipment ${r.from.seq} to ${r.to.seq}.`));
          },
          'Rollback failed',
        ),
    );
    replace(
      confirmSlot,
      h(
        'div',
        { class: 'banner warn', role: 'alertdialog', 'aria-label': 'Confirm rollback' },
        h(
          'p',
          {},
          isBucket(shown.where)
            ? `Return ${shown.where} to the objects it held after shipment ${seq}? Later shipments are undone; objects they changed are put back from the undo objects.`
            : `Return ${shown.where} to how it was after shipment ${seq}? Later shipments are undone; files they changed are put back from the undo area.`,
        ),
        actions(
          secondary('Keep as it is', () => replace(confirmSlot)),
          yes,
        ),
      ),
    );
    yes.focus();
  };
  const askPin = (to: string, seq: number): void => {
    const name = h('input', { type: 'text', name: 'pin-name', 'aria-label': 'Name of the point', placeholder: 'before reprocessing' });
    const yes = primary(
      `Pin shipment ${seq}`,
      () =>
        void busy(
          yes,
          confirmSlot,
          async () => {
            await api().pin({ dest: shown.where, shipment: to, name: name.value });
            await load();
            confirmSlot.appendChild(
              h('p', { class: 'banner ok', role: 'status' }, `Pinned shipment ${seq} as “${name.value.trim()}”: rollback to it is kept.`),
            );
          },
          'Could not pin it',
        ),
    );
    replace(
      confirmSlot,
      h(
        'form',
        { class: 'banner', role: 'dialog', 'aria-label': 'Pin a point', onsubmit: (e: Event) => (e.preventDefault(), yes.click()) },
        h('p', {}, `Name the tree ${shown.where} had after shipment ${seq}. The undo data needed to return to it is kept until you unpin it.`),
        name,
        actions(
          secondary('Cancel', () => replace(confirmSlot)),
          yes,
        ),
      ),
    );
    name.focus();
  };
  const unpin = async (name: string): Promise<void> => {
    const r = await api().unpin({ dest: shown.where, pin: name });
    await load();
    confirmSlot.appendChild(
      h('p', { class: 'banner ok', role: 'status' }, `Unpinned “${name}”${r.freedBytes > 0 ? `; ${bytes(r.freedBytes)} of undo data freed` : ''}.`),
    );
  };
  const show = primary('Show history', () => void busy(show, out, load, 'No history'));
  if (dest) queueMicrotask(() => show.click());
  return h(
    'div',
    { class: 'view', 'data-view': 'history' },
    h('h1', {}, 'History and rollback'),
    h('form', { class: 'step-form', onsubmit: (e: Event) => (e.preventDefault(), show.click()) }, place.el, actions(show)),
    confirmSlot,
    out,
  );
}
