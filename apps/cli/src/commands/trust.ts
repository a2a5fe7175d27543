/** `brickpost trust add|list|remove`: the publisher keys this home trusts. */
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
      const added = await withEngine(ctx, (engine) => engine.trustAdd(key, str(inv, 'name')));
      return show(ctx, added, (k) => `trusted ${describe(k)}`);
    }
    case 'trust remove': {
      const removed = await withEngine(ctx, (engine) => engine.trustRemove(inv.positionals[0]!));
      return show(ctx, removed, (k) => `no longer trusting ${describe(k)}`);
    }
    default:
      return list(ctx);
  }
};

/** A key line as given, or the contents of the file it names. */
async function readKeyArgument(arg: string): Promise<string> {
  const st = await stat(arg).catch(() => undefined);
  if (st !== undefined && !st.isFile()) {
    throw new BrickpostError('BAD_KEY', `${quote(arg)} is not a key file`, { hint: 'pass a minisign public key (RW…) or a .pub file', path: arg });
  }
  if (st?.isFile()) {
    if (st.size > MAX_KEY_FILE) throw new BrickpostError('BAD_KEY', `key file ${quote(arg)} is too large to be a minisign public key`, { path: arg });
    return readFile(arg, 'utf8');
  }
  if (!arg.startsWith('RW') && (arg.includes(sep) || arg.includes('/') || arg.endsWith('.pub'))) {
    throw new BrickpostError('NOT_FOUND', `no such key file: ${quote(arg)}`, {
      hint: 'pass a minisign public key (RW…) or the path of a file holding one',
      path: arg,
    });
  }
  return arg;
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
  await ctx.out.line(`${'KEY ID'.padEnd(16)}  ${'NAME'.padEnd(w)}  ADDED`);
  for (let i = 0; i < keys.length; i++) {
    await ctx.out.line(`${keys[i]!.keyId.padEnd(16)}  ${names[i]!.padEnd(w)}  ${keys[i]!.addedAt}`);
  }
  return 0;
}
