/** What the publisher wizard collects, step by step. */
import type { PackSummary, S3Options } from '@brickpost/engine/api';
import type { SourceInfo } from '../../src/shared/api.js';

export interface PublishState {
  /** A folder, or `s3://BUCKET/PREFIX`. */
  source: string;
  /** How to reach a bucket source (endpoint, profile), when given. */
  s3: S3Options | undefined;
  /** What the source folder holds; null for a bucket (listed while packing). */
  info: SourceInfo | null;
  /** Drive roots chosen, in set order. */
  drives: string[];
  /** age recipients (`age1…`) to encrypt for. */
  recipients: string[];
  /** Also encrypt for this home's own key. */
  self: boolean;
  dataset: string;
  label: string;
  /** Parity drives, or null for the engine's default. */
  parity: number | null;
  recovery: number;
  /** Patterns of entries to leave out, one per line as typed. */
  exclude: string[];
  /** Leave out folders tagged as caches (CACHEDIR.TAG). */
  excludeCaches: boolean;
  /** Refuse names not every system can hold. */
  portable: boolean;
  summary: PackSummary | null;
}

export function newPublishState(): PublishState {
  return {
    source: '',
    s3: undefined,
    info: null,
    drives: [],
    recipients: [],
    self: true,
    dataset: '',
    label: '',
    parity: null,
    recovery: 2,
    exclude: [],
    excludeCaches: false,
    portable: false,
    summary: null,
  };
}
