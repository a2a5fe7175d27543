/**
 * A long job inside a wizard step: its progress panel, a Cancel button, and
 * on failure a note (cancelled) or an error banner, with a button back to
 * an earlier step in place of Cancel.
 */
import type { JobListener } from '../../src/shared/api.js';
import { api, isCode } from '../api.js';
import { h, jobId, replace } from './dom.js';
import { errorBanner, note } from './errors.js';
import { progressPanel } from './progress.js';
import { actions, secondary } from './wizard.js';

export interface JobViewOptions<T> {
  /** Title of the progress panel. */
  title: string;
  /** Starts the job under `id`, sending its events to `onEvent`. */
  start(id: string, onEvent: JobListener): Promise<T>;
  done: (value: T) => void;
  /** What a cancelled job means for the user's data. */
  cancelled: string;
  /** Title of the error banner. */
  failed: string;
  /** The button that replaces Cancel when the job did not finish. */
  back: { label: string; go: () => void };
}

/** Starts the job and returns the panel, the message slot and the button bar, in that order. */
export function jobView<T>(o: JobViewOptions<T>): HTMLElement[] {
  const id = jobId();
  const panel = progressPanel(o.title);
  const slot = h('div', {});
  const cancel = secondary('Cancel', () => {
    cancel.disabled = true;
    void api().cancel(id);
  });
  const bar = actions(cancel);
  o.start(id, panel.update).then(o.done, (e: unknown) => {
    replace(slot, isCode(e, 'CANCELLED') ? note(o.cancelled, 'warn') : errorBanner(e, o.failed));
    replace(bar, secondary(o.back.label, o.back.go));
  });
  return [panel.el, slot, bar];
}
