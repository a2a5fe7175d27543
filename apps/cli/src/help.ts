/**
 * Help texts: the overview (`brickpost --help`), a group's
 * (`brickpost trust --help`) and a command's (`brickpost pack --help`), all built from the
 * command table so they cannot drift from what the parser accepts.
 */
import { COMMANDS, GLOBAL_OPTIONS, GROUPS, groupCommands } from './commands/index.js';
import type { CommandSpec, OptionSpec } from './commands/index.js';
import { renderExitCodes } from './exit-codes.js';

/** The one-line synopsis, e.g. `brickpost ingest <DRIVE-DIR> <DEST-DIR> [options]`. */
export function usageLine(spec: CommandSpec): string {
  const args = spec.args.map((a, i) => (i < spec.min ? `<${a}>` : `[<${a}>]`));
  const required = spec.options.filter((o) => o.required).map((o) => `--${o.name} <${o.value ?? 'VALUE'}>${o.multiple ? '...' : ''}`);
  return ['brickpost', spec.name, ...args, ...required, '[options]'].join(' ');
}

function optionLabel(o: OptionSpec): string {
  const long = `--${o.name}${o.type === 'string' ? ` <${o.value ?? 'VALUE'}>` : ''}`;
  return o.short !== undefined ? `-${o.short}, ${long}` : `    ${long}`;
}

function table(rows: [string, string][], indent = 2): string {
  const w = Math.min(36, Math.max(...rows.map(([a]) => a.length)));
  return (
    rows
      .map(([a, b]) => (a.length > w ? `${' '.repeat(indent)}${a}\n${' '.repeat(indent + w + 2)}${b}` : `${' '.repeat(indent)}${a.padEnd(w)}  ${b}`))
      .join('\n') + '\n'
  );
}

const OUTPUT_RULES = `Results go to stdout. Progress and diagnostics go to stderr, as
"brickpost: ...", "brickpost: warning: ...", "brickpost: error: ..." and
"brickpost: hint: ..." lines; progress is shown only on a terminal.
With --json, quick commands print one JSON document; pack, verify, ingest,
signature and receipt print NDJSON events, one per line: {"type":"progress"|"warning"|"summary"|"error",...},
the last being the summary or the error; ls prints one JSON object per entry.
An error in --json mode is an event {"type":"error","code","exitCode","message","hint"}.
`;

/** `brickpost --help`: every command, the global options, output rules and exit codes. */
export function renderMainHelp(): string {
  const commands: [string, string][] = COMMANDS.map((c) => [c.name, c.summary]);
  commands.push(['help [COMMAND]', 'show help for a command']);
  return (
    'brickpost: ship datasets on external drives, signed, encrypted and verifiable\n\n' +
    'Usage: brickpost <command> [options] [arguments]\n\n' +
    'Commands:\n' +
    table(commands) +
    '\nGlobal options (allowed anywhere on the command line):\n' +
    table(GLOBAL_OPTIONS.map((o) => [optionLabel(o), o.help])) +
    '\nOutput:\n' +
    indent(OUTPUT_RULES) +
    '\nExit codes:\n' +
    renderExitCodes('text') +
    "\nRun 'brickpost <command> --help' for the options of a command.\n"
  );
}

/** `brickpost trust --help`. */
export function renderGroupHelp(group: string): string {
  const subs = groupCommands(group);
  return (
    `Usage: brickpost ${group} <${subs.map((c) => c.name.slice(group.length + 1)).join('|')}> [options]\n\n` +
    `${GROUPS[group] ?? ''}\n\nCommands:\n` +
    table(
      subs.map((c) => [
        usageLine(c)
          .replace(/^brickpost /, '')
          .replace(/ \[options\]$/, ''),
        c.summary,
      ]),
    ) +
    `\nRun 'brickpost ${group} <command> --help' for the options of a command.\n`
  );
}

/** `brickpost pack --help`. */
export function renderCommandHelp(spec: CommandSpec): string {
  const rows: [string, string][] = spec.options.map((o) => [optionLabel(o), o.help + (o.required ? ' (required)' : '')]);
  const globals = GLOBAL_OPTIONS.filter((g) => !spec.options.some((o) => o.name === g.name));
  rows.push(...globals.map((o): [string, string] => [optionLabel(o), o.help]));
  return (
    `Usage: ${usageLine(spec)}\n\n${spec.summary}\n` +
    (spec.details !== undefined ? `\n${spec.details}\n` : '') +
    '\nOptions:\n' +
    table(rows) +
    "\nSee 'brickpost --help' for output rules and exit codes.\n"
  );
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
