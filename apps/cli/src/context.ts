/**
 * The context a command runs in: output channels, global options and the
 * cancellation signal. Commands receive a Context and an Invocation (their
 * parsed options and arguments) and return an exit code.
 */
import type { Output } from './output.js';

/** Global options and services shared by every command. */
export interface Context {
  /** Where results and diagnostics go. */
  out: Output;
  /** `--json`: machine-readable stdout. */
  json: boolean;
  /** `--quiet`: no progress, no informational lines. */
  quiet: boolean;
  /** `--home DIR`, else BRICKPOST_HOME, else undefined (the engine's default). */
  home: string | undefined;
  /** Aborted when the user presses Ctrl-C (or stdout goes away). */
  signal: AbortSignal;
  /** The command as typed, e.g. `trust add`, for messages and hints. */
  command: string;
  /** The whole command line (without node and the script), for hints that repeat it. */
  argv: readonly string[];
}

/** A command's own options (long names) and positional arguments. */
export interface Invocation {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** What a command module exports. Throws BrickpostError (or anything; see failure.ts). */
export type CommandRun = (ctx: Context, inv: Invocation) => Promise<number>;

/** Reads a string option. */
export function str(inv: Invocation, name: string): string | undefined {
  const v = inv.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Reads a repeatable string option (always an array). */
export function list(inv: Invocation, name: string): string[] {
  const v = inv.values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

/** Reads a boolean option. */
export function flag(inv: Invocation, name: string): boolean {
  return inv.values[name] === true;
}
