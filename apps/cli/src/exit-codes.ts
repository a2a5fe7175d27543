/**
 * The exit-code table of the `brickpost` command: one row per error category
 * (see EXIT_CODES in the API contract) plus `internal` for bugs. `--help`
 * prints it and the README's table is checked against `renderExitCodes`.
 */
import { ERROR_CODES, EXIT_CODES } from '@brickpost/engine/api';
import type { Category } from '@brickpost/engine/api';

/** Exit code for an unexpected failure, a bug in brickpost (BSD EX_SOFTWARE). */
export const INTERNAL_EXIT_CODE = 70;

/** One row of the exit-code table. */
export interface ExitCodeRow {
  code: number;
  name: keyof typeof EXIT_CODES | 'internal';
  meaning: string;
}

/** Every exit code the command can return, in numeric order. */
export const EXIT_TABLE: readonly ExitCodeRow[] = [
  { code: EXIT_CODES.ok, name: 'ok', meaning: 'success (verify: the shipment is intact and authentic)' },
  { code: EXIT_CODES.integrity, name: 'integrity', meaning: 'data on the drive is missing, truncated or corrupt' },
  { code: EXIT_CODES.usage, name: 'usage', meaning: 'bad command line, missing argument, key or identity; a bucket that does not exist' },
  { code: EXIT_CODES.authenticity, name: 'authenticity', meaning: 'bad or missing signature, untrusted publisher, not for our key' },
  { code: EXIT_CODES.unsafe, name: 'unsafe', meaning: 'the drive asks for something refused (unsafe path, entry, limit)' },
  {
    code: EXIT_CODES.environment,
    name: 'environment',
    meaning:
      "local problem: no space, permission denied, read-only file system, I/O error, missing tool; a damaged catalog or journal, or another program's file in its place; a destination that cannot hold the shipment's names apart; `pack --strict` with part of the source unreadable; `pack` with a source file that kept changing while read (see `--allow-changing`); object storage that refuses the credentials or denies access, or cannot be reached",
  },
  { code: EXIT_CODES.chain, name: 'chain', meaning: 'the shipment does not apply here (replay, gap, fork, other dataset, expired)' },
  {
    code: EXIT_CODES.busy,
    name: 'busy',
    meaning:
      'another process holds a lock (another brickpost on the destination or home, or any process holding the catalog or a journal), or an interrupted ingest or rollback of the destination must be finished first (brickpost resume DEST)',
  },
  {
    code: EXIT_CODES.incomplete,
    name: 'incomplete',
    meaning: 'a drive set lacks drives (to ingest, or for `rebuild-drive`): the message names the drives still needed',
  },
  {
    code: EXIT_CODES.lagging,
    name: 'lagging',
    meaning: '`subscribers --max-lag`: a subscriber is further behind than the limit (the table and `--json` flag which); the table was printed in full',
  },
  {
    code: INTERNAL_EXIT_CODE,
    name: 'internal',
    meaning: 'internal error, a bug in brickpost (also a command that stopped before it finished): please report it',
  },
  { code: EXIT_CODES.interrupted, name: 'interrupted', meaning: 'interrupted (Ctrl-C); the job was cancelled and cleaned up' },
];

/**
 * The table as text: `text` for `--help` (indented, aligned columns) or
 * `markdown` for the README.
 */
export function renderExitCodes(format: 'text' | 'markdown' = 'text'): string {
  if (format === 'markdown') {
    const rows = EXIT_TABLE.map((r) => `| ${r.code} | ${r.name} | ${r.meaning} |`);
    return ['| code | name | meaning |', '| ---: | --- | --- |', ...rows].join('\n') + '\n';
  }
  const w = Math.max(...EXIT_TABLE.map((r) => r.name.length));
  return EXIT_TABLE.map((r) => `  ${String(r.code).padStart(3)}  ${r.name.padEnd(w)}  ${r.meaning}`).join('\n') + '\n';
}

/** Most serious first; a verify report's exit code is that of its most serious problem. */
const SEVERITY: readonly Category[] = ['authenticity', 'unsafe', 'integrity', 'chain', 'incomplete', 'environment', 'busy', 'lagging', 'usage', 'interrupted'];

/** Category of an error code; codes this build does not know count as integrity problems. */
export function categoryOf(code: string): Category {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as keyof typeof ERROR_CODES] : 'integrity';
}

/**
 * The code of the most serious of `codes` (authenticity, then unsafe,
 * then integrity, then the rest), or undefined for an empty list.
 */
export function mostSerious(codes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestRank = Infinity;
  for (const c of codes) {
    const rank = SEVERITY.indexOf(categoryOf(c));
    if (rank < bestRank) {
      best = c;
      bestRank = rank;
    }
  }
  return best;
}

/** Exit code for an error code, by its category. */
export function exitCodeOf(code: string): number {
  return EXIT_CODES[categoryOf(code)];
}
