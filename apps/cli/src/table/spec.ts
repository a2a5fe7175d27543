/**
 * The shape of the command table (commands/index.ts): a command is a name
 * (`pack`, or `trust add` inside the `trust` group), its options and
 * positional arguments, its help text, and a loader for its module in
 * commands/. Also the options several commands share, and those every
 * command accepts. Loaded by `--help`: imports no command module.
 */
import type { CommandRun } from '../context.js';

/** One option of a command. */
export interface OptionSpec {
  name: string;
  short?: string;
  type: 'string' | 'boolean';
  /** May be given several times; the value is then an array. */
  multiple?: boolean;
  /** Must be given at least once. */
  required?: boolean;
  /** Placeholder in help: `--to <DRIVE-DIR>`. */
  value?: string;
  help: string;
}

/** What a command prints with --json. */
export type JsonMode = 'document' | 'events' | 'entries' | 'none';

/** One runnable command. */
export interface CommandSpec {
  /** `pack`, `trust add`. */
  name: string;
  summary: string;
  /** Positional argument placeholders, in order; trailing ones after `min` are optional. */
  args: string[];
  /** How many positionals are required. */
  min: number;
  /** How many positionals are allowed, when more than `args` (the first one repeats). */
  max?: number;
  options: OptionSpec[];
  json: JsonMode;
  /** Further help paragraphs. */
  details?: string;
  load(): Promise<{ run: CommandRun }>;
}

export const json = (what: string): OptionSpec => ({ name: 'json', type: 'boolean', help: what });
/** What ingest and extract apply of what a shipment recorded (README "What a shipment carries"). */
export const APPLY: OptionSpec[] = [
  {
    name: 'outside-links',
    type: 'boolean',
    help: 'create symbolic links that point outside the target folder as they are (by default they are listed, not created)',
  },
  { name: 'same-permissions', type: 'boolean', help: 'permission bits as the source had them, without your umask (always so for root)' },
  { name: 'setid', type: 'boolean', help: 'keep setuid and setgid bits (root only)' },
  { name: 'owners', type: 'boolean', help: 'give entries the owner and group the source had, by name where it exists here, else by number (root only)' },
  { name: 'acls', type: 'boolean', help: 'apply the POSIX ACLs the source had' },
  { name: 'no-xattrs', type: 'boolean', help: 'do not apply the extended attributes (user.*) the source had' },
  { name: 'specials', type: 'boolean', help: 'create FIFOs and devices the source had (root only)' },
];
/** The limit on how far a shipment's data may expand (SECURITY.md "Bounded work for a small hostile drive"). */
export const maxExpansion: OptionSpec = {
  name: 'max-expansion',
  type: 'string',
  value: 'N',
  help: "accept a shipment whose data expands up to N times its size on the drive (default 10000; 'none' for no limit); holes of sparse files do not count",
};
/** The --shipment option of commands that read a drive. */
/** How to reach object storage (README "Object storage"); credentials only from the environment and ~/.aws. */
export const S3: OptionSpec[] = [
  {
    name: 'endpoint-url',
    type: 'string',
    value: 'URL',
    help: 'the S3 service to use for s3:// URLs, for servers other than AWS (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL)',
  },
  {
    name: 'profile',
    type: 'string',
    value: 'NAME',
    help: 'the profile of ~/.aws/credentials and ~/.aws/config for s3:// URLs (default: $AWS_PROFILE, else default)',
  },
];
export const shipment: OptionSpec = {
  name: 'shipment',
  type: 'string',
  value: 'ID',
  help: 'the shipment to use when the drive holds several',
};

/** Options every command accepts, anywhere on the command line. */
export const GLOBAL_OPTIONS: OptionSpec[] = [
  { name: 'home', type: 'string', value: 'DIR', help: 'folder of your keys and catalog (default: $BRICKPOST_HOME, else per-user)' },
  { name: 'quiet', short: 'q', type: 'boolean', help: 'no progress and no informational messages' },
  { name: 'json', type: 'boolean', help: 'machine-readable output on stdout (see below)' },
  { name: 'help', short: 'h', type: 'boolean', help: 'show help (also: brickpost help [COMMAND])' },
  { name: 'version', type: 'boolean', help: 'print the version' },
];

/** Command groups: a name that prefixes subcommands; it may be a command of its own too (`receipt`). */
export const GROUPS: Record<string, string> = {
  trust: 'manage the publisher keys you trust',
  receipt: "tell a publisher what a destination holds, and record subscribers' receipts",
  catalog: "this home's catalog (its SQLite database)",
  journal: "a destination's journal (DEST/.brickpost/journal.sqlite)",
  drive: 'record where the drives you packed are (shipped, returned)',
};
