/**
 * Command-line parsing. A command line is: global options anywhere, a
 * command word (two for a group: `trust add`), then the command's options and
 * positional arguments; `--` ends options. Built on node:util parseArgs
 * tokens, with our own checks so every mistake becomes a USAGE error that
 * names the option and points at the command's help.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { BrickpostError } from '@brickpost/engine/api';
import { COMMANDS, GLOBAL_OPTIONS, GROUPS, findCommand, groupCommands } from './commands/index.js';
import type { CommandSpec, OptionSpec } from './commands/index.js';
import type { Invocation } from './context.js';
import { usageError } from './failure.js';

/** The global options after parsing. */
export interface Globals {
  home: string | undefined;
  quiet: boolean;
  json: boolean;
}

/** What the command line asks for. */
export type ParsedLine =
  | { kind: 'help'; topic: CommandSpec | string | undefined; globals: Globals }
  | { kind: 'version'; globals: Globals }
  | { kind: 'run'; command: CommandSpec; invocation: Invocation; globals: Globals };

const GLOBAL_NAMES = new Set(GLOBAL_OPTIONS.map((o) => o.name));
const GLOBAL_SHORT = new Map(GLOBAL_OPTIONS.filter((o) => o.short).map((o) => [o.short!, o.name]));

/**
 * A best-effort look for `--json` before `--`, so that even a command line
 * that fails to parse reports its error in the requested form.
 */
export function wantsJson(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--json') return true;
  }
  return false;
}

/**
 * Parses `argv` (without node and script). Throws BrickpostError USAGE for an
 * unknown command or option, a missing or extra argument, a missing value.
 */
export function parseCommandLine(argv: readonly string[]): ParsedLine {
  const words = findCommandWords(argv);
  const first = words[0]?.value;
  const rest = argv.filter((_, i) => !words.some((w) => w.index === i));

  if (first === undefined || first === 'help') {
    const parsed = parseOptions(rest, GLOBAL_OPTIONS, undefined);
    const globals = globalsOf(parsed.values);
    if (first === 'help') return { kind: 'help', topic: helpTopic(parsed.positionals), globals };
    if (parsed.values.version === true && parsed.values.help !== true) return { kind: 'version', globals };
    if (parsed.values.help === true) return { kind: 'help', topic: undefined, globals };
    if (parsed.positionals.length > 0) throw usageError(`unknown command ${JSON.stringify(parsed.positionals[0])}`);
    throw usageError('no command given');
  }

  if (Object.hasOwn(GROUPS, first)) {
    const sub = words[1]?.value;
    // A group that is also a command (`receipt DEST`, `receipt import FILE`): a word naming no subcommand is an argument.
    const own = findCommand(first);
    if (own !== undefined && (sub === undefined || findCommand(`${first} ${sub}`) === undefined)) {
      return parseFor(
        own,
        argv.filter((_, i) => i !== words[0]!.index),
      );
    }
    if (sub === undefined) {
      const parsed = parseOptions(rest, GLOBAL_OPTIONS, first);
      if (parsed.values.help === true) return { kind: 'help', topic: first, globals: globalsOf(parsed.values) };
      throw usageError(`${first} needs a subcommand: ${subcommandNames(first)}`, first);
    }
    const spec = findCommand(`${first} ${sub}`);
    if (spec === undefined) {
      throw usageError(`unknown subcommand ${JSON.stringify(sub)} of ${first}; expected ${subcommandNames(first)}`, first);
    }
    return parseFor(spec, rest);
  }

  const spec = findCommand(first);
  if (spec === undefined) throw usageError(`unknown command ${JSON.stringify(first)}`);
  return parseFor(spec, rest);
}

function parseFor(spec: CommandSpec, rest: readonly string[]): ParsedLine {
  const parsed = parseOptions(rest, [...GLOBAL_OPTIONS, ...spec.options], spec.name);
  const globals = globalsOf(parsed.values);
  if (parsed.values.help === true) return { kind: 'help', topic: spec, globals };
  if (parsed.values.version === true) return { kind: 'version', globals };
  const { positionals } = parsed;
  if (positionals.length < spec.min) {
    throw usageError(
      `missing ${spec.args
        .slice(positionals.length, spec.min)
        .map((a) => `<${a}>`)
        .join(' ')}`,
      spec.name,
    );
  }
  if (positionals.length > (spec.max ?? spec.args.length)) {
    throw usageError(`unexpected argument ${JSON.stringify(positionals[spec.max ?? spec.args.length])}`, spec.name);
  }
  for (const o of spec.options) {
    if (o.required && parsed.values[o.name] === undefined) throw usageError(`missing --${o.name} <${o.value ?? 'VALUE'}>`, spec.name);
  }
  const values: Invocation['values'] = {};
  for (const o of spec.options) values[o.name] = parsed.values[o.name];
  return { kind: 'run', command: spec, invocation: { values, positionals }, globals };
}

/** Positions and values of the command word(s): the first positionals, skipping global options. */
function findCommandWords(argv: readonly string[]): { index: number; value: string }[] {
  const words: { index: number; value: string }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-') && a !== '-') {
      const name = a.startsWith('--') ? a.slice(2).split('=')[0]! : (GLOBAL_SHORT.get(a.slice(1)) ?? '');
      if (!GLOBAL_NAMES.has(name)) break;
      if (name === 'home' && !a.includes('=')) i++;
      continue;
    }
    words.push({ index: i, value: a });
    if (words.length === 2 || !Object.hasOwn(GROUPS, words[0]!.value)) break;
  }
  return words;
}

function helpTopic(positionals: string[]): CommandSpec | string | undefined {
  if (positionals.length === 0) return undefined;
  const name = positionals.join(' ');
  const spec = findCommand(name);
  if (spec !== undefined) return spec;
  if (positionals.length === 1 && Object.hasOwn(GROUPS, name)) return name;
  throw usageError(`no help for unknown command ${JSON.stringify(name)}`);
}

function subcommandNames(group: string): string {
  return groupCommands(group)
    .map((c) => c.name.slice(group.length + 1))
    .join(', ');
}

function globalsOf(values: Record<string, unknown>): Globals {
  const envHome = process.env.BRICKPOST_HOME;
  const given = typeof values.home === 'string' ? values.home : envHome !== undefined && envHome !== '' ? envHome : undefined;
  const home = given !== undefined ? resolve(given) : undefined;
  return { home, quiet: values.quiet === true, json: values.json === true };
}

type Values = Record<string, string | boolean | string[] | undefined>;

/** Parses options and positionals against `specs`; the command name is for hints. */
function parseOptions(args: readonly string[], specs: OptionSpec[], command: string | undefined): { values: Values; positionals: string[] } {
  const byName = new Map<string, OptionSpec>();
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const s of specs) {
    byName.set(s.name, s);
    config[s.name] = s.short !== undefined ? { type: s.type, short: s.short } : { type: s.type };
  }
  let tokens;
  try {
    ({ tokens } = parseArgs({ args: [...args], options: config, strict: false, allowPositionals: true, tokens: true }));
  } catch (e) {
    throw usageError(e instanceof Error ? e.message : String(e), command);
  }
  const values: Values = {};
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value);
    if (t.kind !== 'option') continue;
    const spec = byName.get(t.name);
    if (spec === undefined) throw unknownOption(t.rawName, command);
    values[spec.name] = valueOf(spec, t, values[spec.name], command);
  }
  return { values, positionals };
}

function valueOf(
  spec: OptionSpec,
  t: { rawName: string; value?: string | undefined; inlineValue?: boolean | undefined },
  previous: Values[string],
  command: string | undefined,
): Values[string] {
  const shown = `--${spec.name}`;
  if (spec.type === 'boolean') {
    if (t.value !== undefined) throw usageError(`option ${shown} takes no value`, command);
    return true;
  }
  // parseArgs takes the next word as the value even when it is an option;
  // a value starting with '-' must be written --opt=-value.
  if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-') && t.value !== '-')) {
    throw usageError(`option ${shown} needs a value: ${shown} <${spec.value ?? 'VALUE'}>`, command);
  }
  if (spec.multiple) return [...(Array.isArray(previous) ? previous : []), t.value];
  if (previous !== undefined) throw usageError(`option ${shown} given more than once`, command);
  return t.value;
}

function unknownOption(raw: string, command: string | undefined): BrickpostError {
  const name = raw.split('=')[0];
  if (command === undefined && COMMANDS.some((c) => c.options.some((o) => `--${o.name}` === name))) {
    return usageError(`option ${JSON.stringify(raw)} must come after the command`);
  }
  return usageError(`unknown option ${JSON.stringify(raw)}${command === undefined ? '' : ` for ${command}`}`, command);
}
