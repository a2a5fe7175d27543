/**
 * Live progress of a long job: one bar for the whole job and one per drive,
 * with rate and time left. The summary line is an aria-live region.
 */
import type { ProgressEvent, WarningEvent } from '@brickpost/engine/api';
import { h, replace } from './dom.js';
import { bytes, duration, rate } from './format.js';

const PHASES: Record<string, string> = {
  scan: 'Reading the folder',
  pack: 'Packing',
  seal: 'Sealing',
  verify: 'Checking',
  'deep-verify': 'Checking every chunk',
  ingest: 'Copying into the destination',
  extract: 'Taking files off the drive',
  commit: 'Finishing',
  write: 'Writing',
  rebuild: 'Rebuilding from the other drives',
  repair: 'Repairing',
  retire: 'Setting replaced files aside',
  unstage: 'Undoing',
};

export interface ProgressPanel {
  el: HTMLElement;
  update: (e: ProgressEvent | WarningEvent) => void;
}

/** A progress panel; `update` takes the job's events as they come. */
export function progressPanel(title: string): ProgressPanel {
  const live = h('p', { class: 'progress-text', 'aria-live': 'polite', 'data-testid': 'progress-text' }, 'Starting…');
  const bar = h('progress', { max: 1, 'aria-label': title });
  const drives = h('div', { class: 'drive-bars' });
  const warnings = h('ul', { class: 'warnings' });
  const rows = new Map<string, { bar: HTMLProgressElement; text: HTMLElement }>();
  let last = 0;

  function line(e: ProgressEvent): string {
    const phase = PHASES[e.phase] ?? e.phase;
    const parts = [phase, e.bytesTotal ? `${bytes(e.bytesDone)} of ${bytes(e.bytesTotal)}` : bytes(e.bytesDone)];
    if (e.filesTotal) parts.push(`${e.filesDone} of ${e.filesTotal} files`);
    if (e.rate > 0) parts.push(rate(e.rate));
    if (e.etaSeconds !== undefined && e.etaSeconds > 0) parts.push(`about ${duration(e.etaSeconds)} left`);
    return parts.join(' · ');
  }

  function update(e: ProgressEvent | WarningEvent): void {
    if (e.type === 'warning') {
      warnings.appendChild(h('li', {}, e.message));
      return;
    }
    const frac = e.bytesTotal ? Math.min(1, e.bytesDone / e.bytesTotal) : null;
    if (e.drive) {
      let row = rows.get(e.drive);
      if (!row) {
        row = { bar: h('progress', { max: 1, 'aria-label': `Drive ${e.drive}` }), text: h('span', { class: 'drive-text' }) };
        rows.set(e.drive, row);
        drives.appendChild(h('div', { class: 'drive-bar', 'data-drive': e.drive }, h('code', {}, e.drive), row.bar, row.text));
      }
      if (frac !== null) row.bar.value = frac;
      replace(row.text, line(e));
    }
    if (frac !== null && !e.drive) bar.value = frac;
    else if (frac === null && !e.drive) bar.removeAttribute('value');
    // The live region speaks at most once a second.
    const now = Date.now();
    if (now - last > 1000 || (frac !== null && frac >= 1)) {
      last = now;
      replace(live, line(e));
    }
  }

  return { el: h('div', { class: 'progress-panel' }, bar, live, drives, warnings), update };
}
