import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The commands a vector can run against its drive. */
export const VECTOR_COMMANDS = ['verify', 'verify-deep', 'ingest', 'ls'] as const;
export type VectorCommand = (typeof VECTOR_COMMANDS)[number];

/**
 * One testkit vector (testkit/README.md): a `key: value` header, a blank
 * line, and a recipe body.
 */
export interface Vector {
  /** The file name, `area_case`. */
  name: string;
  /** An error code of errors.ts, or `ok`. */
  expect: string;
  /** The `brickpost` exit code. */
  exit: number;
  command: VectorCommand;
  comment: string;
  /** A string the error message must contain (the offending object), if any. */
  quote?: string;
  /** Options added to the command line (`args: --same-permissions`). */
  args: string[];
  /** The recipe. */
  body: string;
}

/**
 * Parses a vector file. Throws Error naming the file and the problem (a
 * broken vector is a bug in the testkit, not a drive error).
 */
export function parseVector(name: string, text: string): Vector {
  const blank = text.indexOf('\n\n');
  if (blank < 0) throw new Error(`${name}: no blank line after the header`);
  const fields = new Map<string, string>();
  for (const line of text.slice(0, blank).split('\n')) {
    const m = /^([a-z]+): ?(.*)$/.exec(line);
    if (!m) throw new Error(`${name}: bad header line ${JSON.stringify(line)}`);
    const [, key, value] = m as unknown as [string, string, string];
    if (!['expect', 'exit', 'command', 'comment', 'quote', 'args'].includes(key)) throw new Error(`${name}: unknown header ${key}`);
    fields.set(key, fields.has(key) && key === 'comment' ? `${fields.get(key)} ${value}` : value);
  }
  const need = (k: string): string => {
    const v = fields.get(k);
    if (v === undefined) throw new Error(`${name}: missing header ${k}`);
    return v;
  };
  const command = need('command') as VectorCommand;
  if (!VECTOR_COMMANDS.includes(command)) throw new Error(`${name}: unknown command ${command}`);
  const exit = Number(need('exit'));
  if (!Number.isInteger(exit)) throw new Error(`${name}: exit is not a number`);
  const q = fields.get('quote');
  return {
    name,
    expect: need('expect'),
    exit,
    command,
    comment: fields.get('comment') ?? '',
    ...(q !== undefined ? { quote: q } : {}),
    args: (fields.get('args') ?? '').split(' ').filter((a) => a !== ''),
    body: text.slice(blank + 2),
  };
}

/** Every vector file of a folder (README.md and dot files excepted), sorted by name. */
export function loadVectors(dir: string): Vector[] {
  return readdirSync(dir)
    .filter((n) => !n.startsWith('.') && !n.endsWith('.md'))
    .sort()
    .map((n) => parseVector(n, readFileSync(join(dir, n), 'utf8')));
}
