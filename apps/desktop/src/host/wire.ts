/**
 * The messages between the desktop's main process and the engine child
 * process (JSON over the Node IPC channel of child_process.fork).
 */
import type { JobEvent } from '@brickpost/engine/api';
import type { JobMethod, QuickMethod, WireError } from '../shared/methods.js';

/** Main → child. */
export type ToChild =
  | { t: 'call'; id: number; method: QuickMethod; args: unknown[] }
  | { t: 'job'; id: number; jobId: string; method: JobMethod; args: unknown[] }
  | { t: 'cancel'; jobId: string };

/** Child → main. `id` answers the request of that id. */
export type FromChild =
  | { t: 'ready'; home: string }
  | { t: 'fatal'; error: WireError }
  | { t: 'ok'; id: number; value: unknown }
  | { t: 'err'; id: number; error: WireError }
  | { t: 'event'; id: number; event: JobEvent };
