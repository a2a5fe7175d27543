/**
 * The `brickpost` entry point: parse the command line, print help or the
 * version, or load the command's module and run it with a Context; turn any
 * failure into `brickpost: error:` lines (or an error event) and an exit code.
 * Ctrl-C aborts the job's signal so the engine can clean up; a second Ctrl-C
 * exits at once. Exit codes: see exit-codes.ts.
 */
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { EXIT_CODES } from '@brickpost/engine/api';
import { parseCommandLine, wantsJson } from './args.js';
import type { ParsedLine } from './args.js';
import type { Context } from './context.js';
import { toFailure } from './failure.js';
import type { Failure } from './failure.js';
import { renderCommandHelp, renderGroupHelp, renderMainHelp } from './help.js';
import { Output } from './output.js';

/** The CLI package's version, from its package.json. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/**
 * Runs the command line `argv` (without node and the script) and exits the
 * process with the command's exit code. Never throws.
 */
export async function main(argv: readonly string[]): Promise<void> {
  // Node exits 0 when nothing is left to run. With the command not finished, a step
  // is waiting on work that can never settle: a bug, which must not read as success.
  const stalled = (): void => {
    const e = new Error(`the ${commandName(argv)} command stopped before it finished (it waited on work that had ended)`);
    void finish(new Output({ json: wantsJson(argv), quiet: false }), toFailure(e), e).then((code) => process.exit(code));
  };
  process.once('beforeExit', stalled);
  const code = await run(argv);
  process.off('beforeExit', stalled);
  process.exit(code);
}

/** The name of the command `argv` runs, for a message. */
function commandName(argv: readonly string[]): string {
  try {
    const parsed = parseCommandLine(argv);
    return parsed.kind === 'run' ? parsed.command.name : 'brickpost';
  } catch {
    return 'brickpost';
  }
}

/** Like main, but returns the exit code instead of exiting. */
export async function run(argv: readonly string[]): Promise<number> {
  let parsed: ParsedLine;
  try {
    parsed = parseCommandLine(argv);
  } catch (e) {
    const out = new Output({ json: wantsJson(argv), quiet: false });
    return finish(out, toFailure(e), e);
  }
  const { globals } = parsed;
  const controller = new AbortController();
  // Every stage of a job may listen for cancellation; that is not a leak.
  setMaxListeners(0, controller.signal);
  const out = new Output({ json: globals.json, quiet: globals.quiet, onClosed: () => controller.abort() });

  if (parsed.kind === 'help') {
    const t = parsed.topic;
    await out.line((t === undefined ? renderMainHelp() : typeof t === 'string' ? renderGroupHelp(t) : renderCommandHelp(t)).trimEnd());
    await out.flush();
    return EXIT_CODES.ok;
  }
  if (parsed.kind === 'version') {
    await (globals.json ? out.document({ version: version() }) : out.line(`brickpost ${version()}`));
    await out.flush();
    return EXIT_CODES.ok;
  }

  const { command, invocation } = parsed;
  let interrupted = false;
  const onSigint = (): void => {
    if (interrupted) process.exit(EXIT_CODES.interrupted);
    interrupted = true;
    out.clearStatus();
    out.info('interrupted; cleaning up (press Ctrl-C again to quit at once)');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  // An error that escapes the job's promise chain still ends the command
  // with its code and the usual lines, not a Node stack dump.
  const onEscaped = (e: unknown): void => {
    out.clearStatus();
    void finish(out, toFailure(e, { interrupted, command: command.name }), e).then((code) => process.exit(code));
  };
  process.on('uncaughtException', onEscaped);
  process.on('unhandledRejection', onEscaped);
  const ctx: Context = {
    out,
    json: globals.json,
    quiet: globals.quiet,
    home: globals.home,
    signal: controller.signal,
    command: command.name,
    argv,
  };
  try {
    const mod = await command.load();
    const code = await mod.run(ctx, invocation);
    await out.flush();
    return code;
  } catch (e) {
    out.clearStatus();
    const argumentPaths = [
      ...invocation.positionals,
      ...Object.values(invocation.values).flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v : [])),
      ...(globals.home !== undefined ? [globals.home] : []),
    ];
    // eslint-disable-next-line @typescript-eslint/return-await -- the handlers are removed before the failure is printed
    return finish(out, toFailure(e, { argumentPaths, interrupted, command: command.name, argv }), e);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('uncaughtException', onEscaped);
    process.off('unhandledRejection', onEscaped);
  }
}

async function finish(out: Output, f: Failure, cause: unknown): Promise<number> {
  await out.failure(f);
  if (f.code === 'INTERNAL' && process.env.BRICKPOST_DEBUG && cause instanceof Error && cause.stack) {
    process.stderr.write(cause.stack + '\n');
  }
  await out.flush();
  return f.exitCode;
}
