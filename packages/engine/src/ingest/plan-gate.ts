import type { ManifestRecord } from '@brickpost/manifest';
import type { RecordGate } from '../verify/walk-shipment.js';

/** Records the plan may be ahead of the walk (PlanGate.turn). */
export const AHEAD = 4096;
/** Chunk refs the records handed to the walk may hold before the plan waits (a record holds up to 1024, each about 150 bytes). */
export const AHEAD_REFS = 65536;
/**
 * Chunk refs of one file (16 GiB of 1 MiB chunks) past which its records
 * are no longer handed over: the walk may take a file only once the plan
 * finished it, so they would all wait in memory. The walk reads the rest
 * of the manifest itself then.
 */
export const FILE_REFS = 16384;

/**
 * Lets the staging walk run behind the plan, over the same manifest, when
 * an ingest plans and stages at once (steps.ts, planAndStage): both count
 * the manifest's records from its header (0), and the walk acts on record
 * k only once the plan wrote everything record k decides (its ops and its
 * row of the planned tree). The plan reports how far it is with `pass`,
 * and hands each record it read to the walk (`put`, `take`), so the
 * manifest is decrypted, decoded and parsed once; a plan that fails fails
 * the walk's wait with its error, and a walk that fails stops the plan at
 * its next record (`stopped`).
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
  /** Records read by the plan and not yet taken by the walk, from `head` on; and their chunk refs. */
  private records: ManifestRecord[] = [];
  private head = 0;
  private refs = 0;
  /** Refs of the records of the file being planned (not passed yet). */
  private fileRefs = 0;
  /** Records from this index on are not handed over (a file too large to hold): the walk reads them itself. */
  private readFrom: number | null = null;
  private count = 0;
  /** The walk, waiting for the plan to read the next record. */
  private more: (() => void) | null = null;
  private done: Promise<void>;
  private settle!: () => void;

  constructor() {
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  /** Waits (when it must) until record `index` is planned. */
  reached(index: number): Promise<void> | undefined {
    this.walked = index;
    if (this.ahead && index >= this.planned - AHEAD / 2 && this.refs <= AHEAD_REFS / 2) {
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
    if (this.tooFar() && !this.stop) await new Promise<void>((go) => (this.ahead = go));
  }

  private tooFar(): boolean {
    return this.planned - this.walked > AHEAD || this.refs > AHEAD_REFS;
  }

  /**
   * The plan read record `r`, the next: the walk takes it from here (and
   * acts on it once it is planned). True when the records handed over
   * hold many refs: the plan should take its turn at its next record.
   */
  put(r: ManifestRecord): boolean {
    const index = this.count++;
    if (this.readFrom !== null) return false;
    const refs = r.t === 'file' || r.t === 'more' ? r.c.length : 0;
    this.fileRefs = r.t === 'more' ? this.fileRefs + refs : refs;
    if (this.fileRefs > FILE_REFS) this.readFrom = index;
    else {
      this.records.push(r);
      this.refs += refs;
    }
    // A walk waiting for the next record takes it, or reads on itself.
    const go = this.more;
    this.more = null;
    go?.();
    return this.readFrom === null && this.refs > AHEAD_REFS;
  }

  private take(): ManifestRecord | null {
    const r = this.records[this.head];
    if (r === undefined) return null;
    this.records[this.head++] = undefined as unknown as ManifestRecord;
    if (r.t === 'file' || r.t === 'more') this.refs -= r.c.length;
    if (this.head >= 4096 && this.head * 2 >= this.records.length) {
      this.records = this.records.slice(this.head);
      this.head = 0;
    }
    return r;
  }

  /**
   * The manifest's records for the walk, as the plan reads them (each
   * still to be waited for with `reached`); past a file too large to hold,
   * the rest from `own()`, the walk's own reading of the manifest.
   * `idle` runs before the walk waits for the plan to read on.
   */
  async *recordsFor(own: () => AsyncIterable<ManifestRecord>, idle: () => Promise<void>): AsyncGenerator<ManifestRecord> {
    for (let i = 0; ;) {
      if (this.readFrom !== null && i === this.readFrom) {
        let k = 0;
        for await (const r of own()) if (k++ >= i) yield r;
        return;
      }
      const r = this.take();
      if (r !== null) {
        i++;
        yield r;
        continue;
      }
      if (this.failure) throw this.failure.error;
      if (this.over) return;
      await idle();
      if (this.head === this.records.length && !this.over && this.readFrom === null) await new Promise<void>((go) => (this.more = go));
    }
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
    const more = this.more;
    this.more = null;
    more?.();
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
    this.records = [];
    this.head = 0;
    this.refs = 0;
    const go = this.ahead;
    this.ahead = null;
    go?.();
    await this.done;
    return this.failure ? this.failure.error : error;
  }
}
