/** What the subscriber wizard collects, step by step. */
import type { DestHistory, ExtractSummary, IngestSummary, ListEntry, S3Options, VerifyReport } from '@brickpost/engine/api';
import type { Verdict } from './verdict.js';

/** After the check: ingest the whole shipment, or take some entries off it. */
export type ReceiveMode = 'ingest' | 'take';

export interface ReceiveState {
  drive: string;
  report: VerifyReport | null;
  verdict: Verdict | null;
  /** Why verify could not run (with verdict not-brickpost), or null. */
  error: unknown;
  deep: VerifyReport | null;
  mode: ReceiveMode;
  /** A folder, or `s3://BUCKET/PREFIX`. */
  dest: string;
  /** How to reach a bucket destination (endpoint, profile), when given. */
  s3: S3Options | undefined;
  history: DestHistory | null;
  summary: IngestSummary | null;
  /** The folder of the shipment the browse step shows ('' for its root). */
  folder: string;
  /** Entries ticked to take, by path as the manifest holds it, in the order ticked. */
  chosen: Map<string, ListEntry['type']>;
  /** The folder to take them into. */
  takeTo: string;
  taken: ExtractSummary | null;
}

export function newReceiveState(): ReceiveState {
  return {
    drive: '',
    report: null,
    verdict: null,
    error: null,
    deep: null,
    mode: 'ingest',
    dest: '',
    s3: undefined,
    history: null,
    summary: null,
    folder: '',
    chosen: new Map(),
    takeTo: '',
    taken: null,
  };
}

/** Forgets what was learnt of the last drive (a new check starts). */
export function resetDrive(state: ReceiveState, drive: string): void {
  Object.assign(state, { drive, report: null, deep: null, error: null, verdict: null, summary: null, mode: 'ingest', folder: '', taken: null });
  state.chosen.clear();
}
