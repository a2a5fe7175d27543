/**
 * The command table: every command, in the order help lists them, from the
 * tables of table/ (spec.ts says what a command is). Command modules are
 * imported only when their command runs, so `brickpost --help` never loads
 * the engine or native code.
 */
import { DEST_COMMANDS } from '../table/dest.js';
import { DRIVE_COMMANDS } from '../table/drive.js';
import { KEYS_COMMANDS } from '../table/keys.js';
import { SHIPPING_COMMANDS } from '../table/shipping.js';
import type { CommandSpec } from '../table/spec.js';
import { TOOLS_COMMANDS } from '../table/tools.js';

export { GLOBAL_OPTIONS, GROUPS, type CommandSpec, type JsonMode, type OptionSpec } from '../table/spec.js';

/** Every command, in the order help lists them. */
export const COMMANDS: CommandSpec[] = [...KEYS_COMMANDS, ...SHIPPING_COMMANDS, ...DEST_COMMANDS, ...DRIVE_COMMANDS, ...TOOLS_COMMANDS];

/** The command with this name (`pack`, `trust add`), if any. */
export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** The subcommands of a group, e.g. `trust` → trust add, trust list, trust remove. */
export function groupCommands(group: string): CommandSpec[] {
  return COMMANDS.filter((c) => c.name.startsWith(group + ' '));
}
