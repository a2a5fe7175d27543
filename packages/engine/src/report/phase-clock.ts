import type { EventSink } from '../api/index.js';
import type { ReportPhase, ReportTimings } from '../api/report.js';

interface Running {
  phase: string;
  start: number;
  end: number;
  bytes: number;
  files: number;
}

/**
 * Times the phases of a report's check from the progress events passing
 * through it. A phase starts with begin(), or with the first event of a
 * phase not seen before (verify's switch to 'deep-verify'), and ends when
 * the next one starts; its bytes and files are the last event's counters
 * of that phase, or what add() counts.
 */
export class PhaseClock {
  private readonly started = performance.now();
  private readonly done: Running[] = [];
  private current: Running | null = null;

  constructor(private readonly sink: EventSink) {}

  /** The sink to give the job: records, then forwards every event. */
  readonly onEvent: EventSink = (ev) => {
    if (ev.type === 'progress') {
      if (ev.phase !== this.current?.phase && !this.done.some((p) => p.phase === ev.phase)) this.begin(ev.phase);
      if (ev.phase === this.current?.phase) {
        this.current.bytes = ev.bytesDone;
        this.current.files = ev.filesDone;
      }
    }
    this.sink(ev);
  };

  /** Ends the running phase and starts `phase`. */
  begin(phase: string): void {
    this.stop();
    const now = performance.now();
    this.current = { phase, start: now, end: now, bytes: 0, files: 0 };
  }

  /** Counts bytes and files of the running phase (when its events do not). */
  add(bytes: number, files: number): void {
    if (!this.current) return;
    this.current.bytes += bytes;
    this.current.files += files;
  }

  /** Sets the counters of a finished phase to the totals its job reported. */
  settle(phase: string, bytes: number, files: number): void {
    const p = this.done.find((x) => x.phase === phase);
    if (!p) return;
    p.bytes = bytes;
    p.files = files;
  }

  /** Ends the running phase. */
  stop(): void {
    if (!this.current) return;
    this.current.end = performance.now();
    this.done.push(this.current);
    this.current = null;
  }

  /** Every phase, in order, and the seconds since the clock was made. */
  timings(): ReportTimings {
    this.stop();
    const phases: ReportPhase[] = this.done.map((p) => {
      const seconds = (p.end - p.start) / 1000;
      return { phase: p.phase, seconds: round(seconds), bytes: p.bytes, files: p.files, bytesPerSecond: seconds > 0 ? Math.round(p.bytes / seconds) : 0 };
    });
    return { seconds: round((performance.now() - this.started) / 1000), phases };
  }
}

function round(s: number): number {
  return Math.round(s * 1000) / 1000;
}
