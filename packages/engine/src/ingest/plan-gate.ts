import type { RecordGate } from '../verify/walk-shipment.js';

/** Records the plan may be ahead of the walk (PlanGate.turn). */
export const AHEAD = 8192;

/**
 * Lets the staging walk run behind the plan, over the same manifest, when
 * an ingest plans and stages at once (steps.ts, planAndStage): both count
 * the manifest's records from its header (0), and the walk acts on record
 * k only once the plan wrote everything record k decides (its ops and its
 * row of the planned tree). The plan reports how far it is with `pass`;
 * a plan that fails fails the walk's wait with its error, and a walk that
 * fails stops the plan at its next record (`stopped`).
 */
export class PlanGate implements RecordGate {
  /** Records before this index are planned. */
  private planned = 0;
  /** The record the walk is at. */
  private walked = -1;
  /** The plan, waiting for the walk to catch up. */
  private ahead: (() => void) | null = null;
  private waiting: { index: number; go: () => void; fail: (e: unknown) => void } | null = null;
  /** The plan's own failure, if it failed before the walk did. */
  private failure: { error: unknown } | null = null;
  /** The walk's failure, which stops the plan. */
  private stop: { error: unknown } | null = null;
  private over = false;
  private done: Promise<void>;
  private settle!: () => void;

  constructor() {
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  /** Waits (when it must) until record `index` is planned. */
  reached(index: number): Promise<void> | undefined {
    this.walked = index;
    if (this.ahead && index >= this.planned - AHEAD / 2) {
      const go = this.ahead;
      this.ahead = null;
      go();
    }
    // A failed plan stops the walk at once, planned records or not: what it stages is cleared anyway.
    if (this.failure) return Promise.reject(this.failure.error);
    if (index < this.planned) return undefined;
    return new Promise((go, fail) => (this.waiting = { index, go, fail }));
  }

  /**
   * The plan's turn to let the walk run: the event loop gets a turn, and a
   * plan more than AHEAD records ahead of the walk waits until the walk
   * is half as far behind. The walk feeds the stage writer's thread, which
   * bounds a tree of small files: it goes first, and the plan fills the
   * time it waits.
   */
  async turn(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (this.planned - this.walked > AHEAD && !this.stop) await new Promise<void>((go) => (this.ahead = go));
  }

  /** The plan finished every record before `index` (Infinity: all of them). */
  pass(index: number): void {
    this.planned = index;
    const w = this.waiting;
    if (w && w.index < index) {
      this.waiting = null;
      w.go();
    }
  }

  /** The plan ended: with every record planned, or with `error`. */
  ended(error?: unknown): void {
    this.over = true;
    if (error === undefined) this.pass(Infinity);
    else if (!this.stop) {
      this.failure = { error };
      const w = this.waiting;
      this.waiting = null;
      w?.fail(error);
    }
    this.settle();
  }

  /** Whether the plan is still running. */
  get planning(): boolean {
    return !this.over;
  }

  /** What the plan throws at its next record: the walk's failure, once it failed. */
  get stopped(): { error: unknown } | null {
    return this.stop;
  }

  /**
   * The walk failed with `error`: stops the plan and waits for it to end.
   * Returns the error to report: the plan's own, where the plan failed
   * first (the walk then failed because of it), else `error`.
   */
  async halt(error: unknown): Promise<unknown> {
    if (!this.failure) this.stop = { error };
    const go = this.ahead;
    this.ahead = null;
    go?.();
    await this.done;
    return this.failure ? this.failure.error : error;
  }
}
