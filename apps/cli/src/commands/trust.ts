/**
 * `brickpost trust add|list|remove`: the keys this home trusts (publishers
 * of drives, subscribers' receipts), each with the party's age recipient
 * when known.
 */
import { readFile, stat } from 'node:fs/promises';
import { sep } from 'node:path';
import { BrickpostError, quote } from '@brickpost/engine/api';
import type { TrustedKey } from '@brickpost/engine/api';
import type { CommandRun, Context } from '../context.js';
import { str } from '../context.js';
import { printable } from '../format.js';
import { withEngine } from '../session.js';

const MAX_KEY_FILE = 64 * 1024;

/** Dispatches on the subcommand. Throws BAD_KEY, NOT_FOUND (exit 2). */
export const run: CommandRun = async (ctx, inv) => {
  switch (ctx.command) {
    case 'trust add': {
      const key = await readKeyArgument(inv.positionals[0]!);
      const added = await withEngine(ctx, (engine) => engine.trustAdd(key, str(inv, 'name'), str(inv, 'recipient')));
      if (!ctx.json && added.recipient === null)
        ctx.out.info(`no recipient known for ${printable(added.name)}: add one with --recipient age1… to pack for them by name`);
      return show(ctx, added, (k) => `trusted ${describe(k)}${k.recipient !== null ? `, recipient ${k.recipient}` : ''}`);
    }
    case 'trust remove': {
      const removed = await withEngine(ctx, (engine) => engine.trustRemove(inv.positionals[0]!));
      return show(ctx, removed, (k) => `no longer trusting ${describe(k)}`);
    }
    default:
      return list(ctx);
  }
};

/** A key line as given, the contents of the file it names, or standard input for `-`. */
async function readKeyArgument(arg: string): Promise<string> {
  if (arg === '-') return readStdin();
  const st = await stat(arg).catch(() => undefined);
  if (st !== undefined && !st.isFile()) {
    throw new BrickpostError('BAD_KEY', `${quote(arg)} is not a key file`, { hint: 'pass a minisign public key (RW…) or a .pub file', path: arg });
  }
  if (st?.isFile()) {
    if (st.size > MAX_KEY_FILE) throw new BrickpostError('BAD_KEY', `key file ${quote(arg)} is too large to be a minisign public key`, { path: arg });
    return readFile(arg, 'utf8');
  }
  if (!arg.startsWith('RW') && !/\s/.test(arg) && (arg.includes(sep) || arg.includes('/') || arg.endsWith('.pub'))) {
    throw new BrickpostError('NOT_FOUND', `no such key file: ${quote(arg)}`, {
      hint: 'pass a minisign public key (RW…) or the path of a file holding one',
      path: arg,
    });
  }
  return arg;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin.setEncoding('utf8')) {
    text += chunk as string;
    if (text.length > MAX_KEY_FILE)
      throw new BrickpostError('BAD_KEY', 'standard input is too large to be a public key', {
        hint: "pipe the key line, the .pub file, or what 'brickpost whoami' prints",
      });
  }
  return text;
}

/** A recipient in a table: `age1` and its first and last characters. */
function shortRecipient(r: string | null): string {
  if (r === null) return '-';
  return r.length <= 24 ? r : `${r.slice(0, 12)}…${r.slice(-8)}`;
}

function describe(k: TrustedKey): string {
  return `${printable(k.name)} (key id ${k.keyId})`;
}

async function show(ctx: Context, key: TrustedKey, text: (k: TrustedKey) => string): Promise<number> {
  await (ctx.json ? ctx.out.document(key) : ctx.out.line(text(key)));
  return 0;
}

async function list(ctx: Context): Promise<number> {
  const keys = await withEngine(ctx, (engine) => engine.trustList());
  if (ctx.json) {
    await ctx.out.document(keys);
    return 0;
  }
  if (keys.length === 0) {
    ctx.out.info("no trusted keys; add a publisher's key with 'brickpost trust add'");
    return 0;
  }
  const names = keys.map((k: TrustedKey) => printable(k.name) + (k.self ? ' (you)' : ''));
  const w = Math.max(4, ...names.map((n: string) => n.length));
  await ctx.out.line(`${'KEY ID'.padEnd(16)}  ${'NAME'.padEnd(w)}  ${'RECIPIENT'.padEnd(21)}  ADDED`);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    await ctx.out.line(`${k.keyId.padEnd(16)}  ${names[i]!.padEnd(w)}  ${shortRecipient(k.recipient).padEnd(21)}  ${k.addedAt}`);
  }
  return 0;
}
