/**
 * The `brickpost` command. Terms: a *command* is one entry of the command
 * table (commands/index.ts), run with a *Context* (output, global options,
 * abort signal) and an *Invocation* (its options and arguments); a *Failure*
 * is how any error is reported; the *exit-code table* maps error categories
 * to process exit codes. The launcher is bin/brickpost.js.
 */
export { main, run, version } from './main.js';
export { parseCommandLine } from './args.js';
export type { Globals, ParsedLine } from './args.js';
export { COMMANDS, GLOBAL_OPTIONS, GROUPS } from './commands/index.js';
export type { CommandSpec, OptionSpec } from './commands/index.js';
export { EXIT_TABLE, INTERNAL_EXIT_CODE, renderExitCodes } from './exit-codes.js';
export type { ExitCodeRow } from './exit-codes.js';
export { renderMainHelp, renderCommandHelp, renderGroupHelp } from './help.js';
