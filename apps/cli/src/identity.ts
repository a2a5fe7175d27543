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

/**
 * Prints the identity as a JSON document or as text lines on stdout.
 * `contact`: only what others need to trust you (name, recipient, public
 * key, key id), without the local paths of the key files and home.
 */
export async function printIdentity(ctx: Context, w: WhoAmI, contact = false): Promise<void> {
  if (ctx.json) {
    const doc = identityDocument(w);
    await ctx.out.document(contact ? { name: doc.name, recipient: doc.recipient, minisignPublicKey: doc.minisignPublicKey, keyId: doc.keyId } : doc);
    return;
  }
  const rows: [string, string][] = [
    ['name', printable(w.name)],
    ['recipient', w.recipient],
    ['public key', w.minisignPublicKey],
    ['key id', w.keyId],
  ];
  if (!contact) rows.push(['identity file', w.identityFile], ['public key file', w.minisignPublicKeyFile], ['home', w.home]);
  for (const [k, v] of rows) await ctx.out.line(`${k.padEnd(16)}${v}`);
}
