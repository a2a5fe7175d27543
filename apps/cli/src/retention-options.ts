/** The options that say how long a destination keeps its undo data (ingest, prune). */
import type { Invocation } from './context.js';
import { str } from './context.js';
import type { OptionSpec } from './commands/index.js';

/** --keep-undo and --keep-days, as ingest and prune take them. */
export const RETENTION: OptionSpec[] = [
  {
    name: 'keep-undo',
    type: 'string',
    value: 'N',
    help: "how many shipments stay undoable by rollback (default 3, 0 keeps none, 'all' keeps every one); remembered by DEST",
  },
  { name: 'keep-days', type: 'string', value: 'D', help: 'also keep the undo data of shipments applied in the last D days; remembered by DEST' },
];

/** The engine's retention options from the command line (NaN for a value the engine then refuses). */
export function retentionOptions(inv: Invocation): { keepUndo?: number; keepAll?: boolean; keepDays?: number } {
  const keep = str(inv, 'keep-undo');
  const days = str(inv, 'keep-days');
  return {
    ...(keep === 'all' ? { keepAll: true } : keep !== undefined ? { keepUndo: /^[0-9]{1,4}$/.test(keep) ? Number(keep) : NaN, keepAll: false } : {}),
    ...(days !== undefined ? { keepDays: /^[0-9]{1,6}$/.test(days) ? Number(days) : NaN } : {}),
  };
}
