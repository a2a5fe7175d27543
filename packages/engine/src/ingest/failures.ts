import { isBrickpostError, quote } from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import { isSystemError, placeIn, toEnvironmentError } from '../io/errors.js';
import { removeTree } from '../io/remove-tree.js';

/** The folders a job works on, to tell which one a failing path is on. */
export interface Places {
  drives?: readonly string[];
  dest?: string;
  home?: string;
}

/**
 * What a stopped ingest or rollback reports: a system error becomes the
 * environment error naming the call, the path and what to do, with the
 * drive, the destination or the home named by where the path lies; an
 * environment error that does not yet say what to do next is told `then`.
 * Anything else (a bug) is returned as it is.
 */
export function jobFailure(e: unknown, what: string, places: Places, then: string): unknown {
  if (!isSystemError(e) && !isBrickpostError(e)) return e;
  const on = placeIn([...(places.drives ?? []).map((d) => [d, 'drive'] as const), [places.dest, 'destination'], [places.home, 'home']]);
  return toEnvironmentError(e, what, { on, then });
}

/**
 * Removes what a finished job no longer needs; one that cannot be removed
 * is a warning (the next job removes it), never a failure of the job.
 */
export async function tidy(paths: readonly string[], onEvent: EventSink): Promise<void> {
  for (const p of paths) {
    await removeTree(p).catch((e: unknown) => {
      onEvent({ type: 'warning', code: 'LEFT_OVER', message: `cannot remove ${quote(p)} (${(e as Error).message}); the next run removes it`, path: p });
    });
  }
}
