/**
 * Failure: how an error that reached the top of a command is reported. Every
 * thrown value becomes one Failure (code, exit code, message, hint, path),
 * printed as `brickpost: error: …` lines or as an `error` event in --json.
 */
import { resolve } from 'node:path';
import { BrickpostError, ERROR_CODES, bugBehind, isBrickpostError, isSystemError, sqliteErrorCode, toEnvironmentError } from '@brickpost/engine/api';
import type { ErrorEvent } from '@brickpost/engine/api';
import { INTERNAL_EXIT_CODE, exitCodeOf } from './exit-codes.js';
import { commandLine } from './format.js';

/** A reportable failure; the same shape as the contract's ErrorEvent. */
export type Failure = ErrorEvent;

/** What the classifier knows about the command line, to tell bad arguments from I/O failures. */
export interface FailureContext {
  /** Paths the user passed as arguments; ENOENT on one of them is a usage error. */
  argumentPaths?: readonly string[];
  /** Set when the user interrupted the job. */
  interrupted?: boolean;
  /** The command, for hints (`see 'brickpost pack --help'`). */
  command?: string;
  /** The command line as typed (without node and the script), for hints that repeat it with one option more. */
  argv?: readonly string[];
}

/** Shorthand for a usage error (exit 2) with the standard hint. Throws nothing. */
export function usageError(message: string, command?: string): BrickpostError {
  return new BrickpostError('USAGE', message, { hint: helpHint(command) });
}

/** `see 'brickpost pack --help'`, or the global help when no command is known. */
export function helpHint(command?: string): string {
  return command ? `see 'brickpost ${command} --help'` : "see 'brickpost --help'";
}

/** Duck-typed check for a BrickpostError from another copy of the module. */
function looksLikeBrickpostError(e: unknown): e is BrickpostError {
  if (isBrickpostError(e)) return true;
  return (
    e instanceof Error &&
    e.name === 'BrickpostError' &&
    typeof (e as unknown as { code?: unknown }).code === 'string' &&
    Object.hasOwn(ERROR_CODES, (e as unknown as { code: string }).code)
  );
}

/**
 * For a drive that holds several shipments: the command as typed with
 * `--shipment` and the newest id, a command that works as printed.
 */
function choiceHint(e: BrickpostError, ctx: FailureContext): string | undefined {
  const newest = e.choices?.[e.choices.length - 1];
  if (e.code !== 'AMBIGUOUS_SHIPMENT' || newest === undefined || ctx.argv === undefined) return undefined;
  return `name one with --shipment; for the newest: ${commandLine([...ctx.argv, '--shipment', newest])}`;
}

/**
 * For a shipment refused for expanding too far: the engine's advice and
 * the command as typed with `--max-expansion` set to the value that
 * accepts it (the engine's `choices`), a command that works as printed.
 */
function expansionHint(e: BrickpostError, ctx: FailureContext): string | undefined {
  const value = e.choices?.[0];
  if (e.code !== 'LIMIT_EXCEEDED' || value === undefined || ctx.argv === undefined) return undefined;
  const argv: string[] = [];
  for (let i = 0; i < ctx.argv.length; i++) {
    const a = ctx.argv[i]!;
    if (a === '--max-expansion') i++;
    else if (!a.startsWith('--max-expansion=')) argv.push(a);
  }
  return `${(e.hint ?? '').replace(/; if you trust the publisher.*$/, '')}; if you trust the publisher, accept it: ${commandLine([...argv, '--max-expansion', value])}`;
}

/** Turns anything thrown into a Failure. Never throws. */
export function toFailure(e: unknown, ctx: FailureContext = {}): Failure {
  // An environment error wrapped around a bug is the bug.
  e = bugBehind(e) ?? e;
  if (looksLikeBrickpostError(e)) {
    if (ctx.interrupted && e.code !== 'CANCELLED') return cancelled();
    return withOptional(
      { type: 'error', code: e.code, exitCode: exitCodeOf(e.code), message: e.message },
      choiceHint(e, ctx) ?? expansionHint(e, ctx) ?? e.hint,
      e.path,
    );
  }
  if (ctx.interrupted || (e instanceof Error && e.name === 'AbortError')) return cancelled();
  if (isSystemError(e)) {
    const path = e.path;
    if (e.code === 'ENOENT' && path !== undefined && (ctx.argumentPaths ?? []).some((p) => samePath(p, path))) {
      return withOptional(
        { type: 'error', code: 'NOT_FOUND', exitCode: exitCodeOf('NOT_FOUND'), message: `no such file or directory: ${JSON.stringify(path)}` },
        helpHint(ctx.command),
        path,
      );
    }
    // An errno is the machine's answer (exit 5 with the engine's words and hint), never a bug;
    // a path that vanished under a running job is the machine's too.
    const b = toEnvironmentError(e, '');
    const code = b.code === 'NOT_FOUND' ? 'IO' : b.code;
    return withOptional({ type: 'error', code, exitCode: exitCodeOf(code), message: b.message }, b.hint, path);
  }
  const sqlite = sqliteFailure(e);
  if (sqlite) return sqlite;
  const message = e instanceof Error ? e.message : String(e);
  return {
    type: 'error',
    code: 'INTERNAL',
    exitCode: INTERNAL_EXIT_CODE,
    message: `internal error: ${message}`,
    hint: 'this is a bug in brickpost; please report it with the command line and this message (set BRICKPOST_DEBUG=1 for a stack trace)',
  };
}

/**
 * An error SQLite raised that the engine did not map itself (it maps those
 * on the catalog and destination journals, naming the file): classified by
 * the engine's table (sqliteErrorCode), so a locked, full, failing or
 * damaged database is never reported as a bug. SQL errors stay INTERNAL.
 */
function sqliteFailure(e: unknown): Failure | null {
  const raw = (e as { code?: unknown } | null)?.code;
  if (!(e instanceof Error) || typeof raw !== 'string' || !raw.startsWith('SQLITE_')) return null;
  const code = sqliteErrorCode(raw);
  if (code === null) return null;
  const hint =
    code === 'LOCKED'
      ? 'another process holds a brickpost database; wait until it is done, then run the command again'
      : code === 'DATABASE_DAMAGED'
        ? "a brickpost database is damaged; see 'brickpost catalog recover --help' (the home's catalog) and 'brickpost journal recover --help' (a destination's journal)"
        : code === 'CANCELLED'
          ? undefined
          : 'check the disk holding your home (--home) and the destination, then run the command again';
  return withOptional({ type: 'error', code, exitCode: exitCodeOf(code), message: `database error: ${e.message.toLowerCase()} (${raw})` }, hint, undefined);
}

function cancelled(): Failure {
  return { type: 'error', code: 'CANCELLED', exitCode: exitCodeOf('CANCELLED'), message: 'interrupted; the job was cancelled' };
}

function samePath(a: string, b: string): boolean {
  return resolve(a) === resolve(b);
}

function withOptional(f: Failure, hint: string | undefined, path: string | undefined): Failure {
  if (hint !== undefined) f.hint = hint;
  if (path !== undefined) f.path = path;
  return f;
}
