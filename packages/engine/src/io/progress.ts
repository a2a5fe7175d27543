import type { EventSink } from '../api/index.js';

/**
 * Turns counters into throttled progress events with a rate over the last
 * few seconds and an ETA.
 */
export class Progress {
  bytesDone = 0;
  filesDone = 0;
  bytesTotal: number | undefined;
  filesTotal: number | undefined;
  private last = 0;
  private readonly samples: Array<[number, number]> = [];

  constructor(
    private readonly sink: EventSink,
    public phase: string,
    private readonly intervalMs = 200,
    private readonly drive?: string,
  ) {}

  add(bytes: number, files = 0): void {
    this.bytesDone += bytes;
    this.filesDone += files;
    const now = performance.now();
    if (now - this.last >= this.intervalMs) this.emit(now);
  }

  /** Emits an event now (at phase changes and at the end). */
  emit(now = performance.now()): void {
    this.last = now;
    this.samples.push([now, this.bytesDone]);
    while (this.samples.length > 2 && now - this.samples[0]![0] > 5000) this.samples.shift();
    const [t0, b0] = this.samples[0]!;
    const rate = now > t0 ? ((this.bytesDone - b0) * 1000) / (now - t0) : 0;
    const left = this.bytesTotal === undefined ? undefined : Math.max(0, this.bytesTotal - this.bytesDone);
    this.sink({
      type: 'progress',
      phase: this.phase,
      bytesDone: this.bytesDone,
      ...(this.bytesTotal !== undefined ? { bytesTotal: this.bytesTotal } : {}),
      filesDone: this.filesDone,
      ...(this.filesTotal !== undefined ? { filesTotal: this.filesTotal } : {}),
      rate: Math.round(rate),
      ...(left !== undefined && rate > 0 ? { etaSeconds: Math.round(left / rate) } : {}),
      ...(this.drive ? { drive: this.drive } : {}),
    });
  }
}
