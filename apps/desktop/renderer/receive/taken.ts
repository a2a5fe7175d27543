/** Subscriber, taking files: what was written, and what the drive recorded but was not applied. */
import type { ExtractSummary } from '@brickpost/engine/api';
import { facts, h } from '../ui/dom.js';
import { bytes, count, duration } from '../ui/format.js';
import { notAppliedNote } from '../ui/not-applied.js';
import { actions, primary, secondary, type Step } from '../ui/wizard.js';
import type { ReceiveState } from './state.js';

/** "3 files, 1 folder and 1 symbolic link" (kinds that are 0 left out). */
export function writtenText(s: Pick<ExtractSummary, 'files' | 'dirs' | 'links' | 'hardLinks' | 'specials'>): string {
  const parts = [
    s.files ? count(s.files, 'file') : '',
    s.dirs ? count(s.dirs, 'folder') : '',
    s.links ? count(s.links, 'symbolic link') : '',
    s.hardLinks ? count(s.hardLinks, 'hard link') : '',
    s.specials ? count(s.specials, 'special file') : '',
  ].filter(Boolean);
  if (parts.length === 0) return 'nothing';
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

export const takenStep: Step<ReceiveState> = {
  id: 'taken',
  title: 'Done',
  render({ state, goto }) {
    const s = state.taken!;
    const again = secondary('Take more files', () => {
      state.chosen.clear();
      goto('browse');
    });
    const ingest = secondary('Ingest the whole shipment', () => {
      state.mode = 'ingest';
      goto('dest');
    });
    return h(
      'div',
      {},
      h(
        'p',
        { class: 'banner ok', role: 'status', 'data-testid': 'taken' },
        `Wrote ${writtenText(s)} (${bytes(s.bytesWritten)}) from shipment ${s.shipmentId} into ${s.to}.`,
      ),
      facts([
        ['Files', `${count(s.files, 'file')}, ${bytes(s.bytesWritten)}`],
        ['Folders', count(s.dirs, 'folder')],
        ['Symbolic links', count(s.links, 'symbolic link')],
        ['Hard links', count(s.hardLinks, 'hard link')],
        ['Special files', count(s.specials, 'special file')],
        ['Took', duration(s.seconds)],
      ]),
      notAppliedNote(s.notApplied, null),
      h(
        'p',
        { class: 'help' },
        "Every file was checked against the publisher's signed ids as it was read. The folder holds no destination state: ingesting later writes the whole shipment into a destination of its own.",
      ),
      actions(
        again,
        ingest,
        primary('Back to the start', () => (location.hash = '#/')),
      ),
    );
  },
};
