/**
 * How an identity (WhoAmI) is shown: a JSON document with a fixed set of
 * fields, or aligned `key  value` lines.
 */
import type { WhoAmI } from '@brickpost/engine/api';
import type { Context } from './context.js';
import { printable } from './format.js';

/** The JSON form of `whoami --json` and `keygen --json`, fields in a stable order. */
export function identityDocument(w: WhoAmI): Record<string, string> {
  return {
    recipient: w.recipient,
    minisignPublicKey: w.minisignPublicKey,
    keyId: w.keyId,
    identityFile: w.identityFile,
    minisignPublicKeyFile: w.minisignPublicKeyFile,
    name: w.name,
    home: w.home,
  };
}

/** Prints the identity as a JSON document or as text lines on stdout. */
export async function printIdentity(ctx: Context, w: WhoAmI): Promise<void> {
  if (ctx.json) {
    await ctx.out.document(identityDocument(w));
    return;
  }
  const rows: [string, string][] = [
    ['name', printable(w.name)],
    ['recipient', w.recipient],
    ['public key', w.minisignPublicKey],
    ['key id', w.keyId],
    ['identity file', w.identityFile],
    ['public key file', w.minisignPublicKeyFile],
    ['home', w.home],
  ];
  for (const [k, v] of rows) await ctx.out.line(`${k.padEnd(16)}${v}`);
}
