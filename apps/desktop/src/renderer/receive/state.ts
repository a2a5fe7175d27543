/** What the subscriber wizard collects, step by step. */
import type { DestHistory, IngestSummary, VerifyReport } from '@brickpost/engine/api';
import type { Verdict } from './verdict.js';

export interface ReceiveState {
  drive: string;
  report: VerifyReport | null;
  verdict: Verdict | null;
  /** Why verify could not run (with verdict not-brickpost), or null. */
  error: unknown;
  deep: VerifyReport | null;
  dest: string;
  history: DestHistory | null;
  summary: IngestSummary | null;
}

export function newReceiveState(): ReceiveState {
  return { drive: '', report: null, verdict: null, error: null, deep: null, dest: '', history: null, summary: null };
}
