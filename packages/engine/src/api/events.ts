/**
 * The events of long jobs (pack, verify, ingest, extract…): what an
 * EventSink receives while a job runs, and what `--json` prints as NDJSON
 * and the desktop shows: progress and warnings, then a summary or an
 * error. Types only.
 */

/** A progress report of a long job; emitted at most a few times a second. */
export interface ProgressEvent {
  type: 'progress';
  /** What the job is doing now: 'scan', 'pack', 'seal', 'verify', 'ingest', 'commit'. */
  phase: string;
  bytesDone: number;
  /** Unknown while scanning. */
  bytesTotal?: number;
  filesDone: number;
  filesTotal?: number;
  /** Bytes per second over the last few seconds. */
  rate: number;
  /** Seconds left at the current rate, when bytesTotal is known. */
  etaSeconds?: number;
  /** The drive this event is about, for jobs over several drives. */
  drive?: string;
}

/** Something the user should know that does not stop the job. */
export interface WarningEvent {
  type: 'warning';
  code: string;
  message: string;
  path?: string;
}

/** The result of a long job, last event on success. */
export interface SummaryEvent<T extends object = object> {
  type: 'summary';
  command: string;
  result: T;
}

/** How a failed job ended; last event on failure. */
export interface ErrorEvent {
  type: 'error';
  code: string;
  exitCode: number;
  message: string;
  hint?: string;
  path?: string;
}

/** Every event of a long job as `--json` prints it, one per NDJSON line: progress and warnings, then a summary or an error. */
export type EngineEvent = ProgressEvent | WarningEvent | SummaryEvent | ErrorEvent;
/** The events a long job emits while it runs (before its summary or error). */
export type JobEvent = ProgressEvent | WarningEvent;
/** Receives events of a long job. Must not throw. */
export type EventSink = (event: JobEvent) => void;
