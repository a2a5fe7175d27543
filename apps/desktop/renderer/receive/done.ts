/** Subscriber step 5: what ingest did, the receipt to send back, and the report. */
import { api } from '../api.js';
import { facts, h, replace } from '../ui/dom.js';
import { bytes, count, duration } from '../ui/format.js';
import { documentFrame } from '../ui/frame.js';
import { notAppliedNote } from '../ui/not-applied.js';
import { note } from '../ui/errors.js';
import { historyHref, isBucket } from '../ui/s3.js';
import { actions, busy, primary, secondary, type Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';

export const receivedStep: Step<ReceiveState> = {
  id: 'received',
  title: 'Done',
  render({ state }) {
    const s = state.summary!;
    const bucket = isBucket(s.dest);
    const receiptSlot = h('div', { 'data-testid': 'receipt' });
    const reportSlot = h('div', { class: 'doc-slot', 'data-testid': 'report' });
    const receiptBtn = primary(
      'Export receipt',
      () =>
        void busy(
          receiptBtn,
          receiptSlot,
          async () => {
            const r = await api().receipt({ dest: s.dest });
            replace(
              receiptSlot,
              h(
                'p',
                { class: 'banner ok', role: 'status' },
                'Receipt written to ',
                h('code', { 'data-testid': 'receipt-path' }, r.out),
                '. Send it and its .minisig file to the publisher, so the next shipment carries only what changed.',
              ),
              h('pre', { class: 'receipt-text', tabindex: 0, 'aria-label': 'Receipt text' }, r.text),
            );
          },
          'No receipt',
        ),
    );
    const reportBtn = secondary(
      'Open report',
      () =>
        void busy(
          reportBtn,
          reportSlot,
          async () => {
            const r = await api().report({ target: s.dest });
            replace(reportSlot, documentFrame(r.html, `Report of ${s.dest}`, 'report'));
          },
          'No report',
        ),
    );
    return h(
      'div',
      {},
      h(
        'p',
        { class: 'banner ok', role: 'status' },
        s.alreadyApplied
          ? `Shipment ${s.seq} was already applied to this ${bucket ? 'bucket prefix' : 'folder'}; nothing changed.`
          : `Shipment ${s.seq} of "${s.dataset}" is in ${s.dest}.`,
      ),
      facts([
        ['Files', `${count(s.files, 'file')}: ${s.filesWritten} written, ${s.filesUnchanged} unchanged${s.filesLinked ? `, ${s.filesLinked} moved` : ''}`],
        ['Links and special files', `${count(s.links, 'symbolic link')}, ${count(s.hardLinks, 'hard link')}, ${count(s.specials, 'special file')}`],
        ['Read from the drive', bytes(s.bytesFromDrive)],
        ...(s.bytesReused ? ([['Reused from the folder', bytes(s.bytesReused)]] as Array<[string, string]>) : []),
        ['Kind', s.incremental ? 'incremental update' : 'complete shipment'],
        ['Took', duration(s.seconds)],
      ]),
      s.skipped
        ? h('p', { class: 'banner warn' }, `${s.skipped} damaged file(s) were left out; their list is in ${s.skippedList ?? 'the destination'}.`)
        : null,
      notAppliedNote(s.notApplied, s.notAppliedList),
      bucket
        ? note(
            'Receipts and destination reports are made of folder destinations. The history of the bucket lists the shipments applied to it; any machine with the credentials can ingest the next one.',
          )
        : null,
      actions(
        ...(bucket ? [] : [receiptBtn, reportBtn]),
        h('a', { href: historyHref(s.dest, state.s3), class: 'button secondary' }, bucket ? 'History of this bucket' : 'History of this folder'),
      ),
      receiptSlot,
      reportSlot,
    );
  },
};
