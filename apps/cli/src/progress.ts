/**
 * Progress: the one-line status of a long job on a terminal's stderr, e.g.
 * `pack  1.29 GB / 2.15 GB  60%  312 MB/s  ETA 0:42  1,234/5,678 files`,
 * rewritten in place at most `intervalMs` apart and erased at the end.
 */
import type { ProgressEvent } from '@brickpost/engine/api';
import { formatBytes, formatCount, formatDuration, formatRate } from './format.js';
import type { Output } from './output.js';

/** The status text for one progress event. */
export function renderProgress(ev: ProgressEvent): string {
  const parts: string[] = [ev.phase.padEnd(6)];
  if (ev.bytesTotal !== undefined && ev.bytesTotal > 0) {
    const pct = Math.min(100, Math.floor((ev.bytesDone / ev.bytesTotal) * 100));
    parts.push(`${formatBytes(ev.bytesDone)} / ${formatBytes(ev.bytesTotal)}`, `${String(pct).padStart(3)}%`);
  } else {
    parts.push(formatBytes(ev.bytesDone));
  }
  if (ev.rate > 0) parts.push(formatRate(ev.rate));
  if (ev.etaSeconds !== undefined && Number.isFinite(ev.etaSeconds)) parts.push(`ETA ${formatDuration(ev.etaSeconds)}`);
  parts.push(ev.filesTotal !== undefined ? `${formatCount(ev.filesDone)}/${formatCount(ev.filesTotal)} files` : `${formatCount(ev.filesDone)} files`);
  if (ev.drive !== undefined) parts.push(`[${ev.drive}]`);
  return parts.join('  ');
}

/** Each drive of a set in a few characters: `d2 1.18 GB 95 MB/s ETA 3:12`. */
export function renderDrives(drives: ReadonlyMap<string, ProgressEvent>): string {
  return [...drives.values()]
    .map((ev, i) => {
      const eta = ev.etaSeconds !== undefined && Number.isFinite(ev.etaSeconds) ? ` ETA ${formatDuration(ev.etaSeconds)}` : '';
      return `d${i + 1} ${formatBytes(ev.bytesDone)} ${formatRate(ev.rate)}${eta}`;
    })
    .join(' | ');
}

/**
 * Throttled status line; does nothing when the output has no terminal
 * status line. The write progress of the drives of a set (events with a
 * `drive`) is shown after the job's own line, one short part per drive.
 */
export class ProgressLine {
  private last = -Infinity;
  private phase: string | undefined;
  private readonly drives = new Map<string, ProgressEvent>();
  private main: ProgressEvent | undefined;

  constructor(
    private readonly out: Output,
    private readonly intervalMs = 200,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Shows `ev` unless the previous update was less than `intervalMs` ago (phase changes always show). */
  update(ev: ProgressEvent): void {
    if (!this.out.statusEnabled) return;
    if (ev.drive !== undefined && ev.phase === 'write') {
      this.drives.set(ev.drive, ev);
      if (!this.main) return;
      ev = this.main;
    } else {
      this.main = ev;
    }
    const t = this.now();
    if (ev.phase === this.phase && t - this.last < this.intervalMs) return;
    this.last = t;
    this.phase = ev.phase;
    this.out.status(this.drives.size > 1 ? `${renderProgress(ev)}  ||  ${renderDrives(this.drives)}` : renderProgress(ev));
  }

  /** Erases the line. */
  done(): void {
    this.out.clearStatus();
  }
}
