import type { TrustedKey, WhoAmI } from '../api/index.js';
import { setMeta } from '../catalog/meta.js';
import { retireSelfKey } from '../catalog/trust.js';
import type { Context } from '../context.js';
import { addTrust, createIdentity, fillRecipient, hasIdentity, listTrust, selfTrustName, type Identity } from './index.js';

/** Creates the identity of the home `ctx` works in and trusts its own key. @throws IDENTITY_EXISTS unless force */
export function keygen(ctx: Context, opts: { name?: string; force?: boolean }): WhoAmI {
  const name = opts.name ?? ctx.name;
  const id = createIdentity(ctx.home, name, opts.force ?? false);
  setMeta(ctx.catalog, 'name', name);
  // The replaced key stays trusted (drives it signed still verify), but its
  // recipient is gone with its secret key: nothing is encrypted to it again.
  retireSelfKey(ctx.catalog);
  ctx.forgetIdentity();
  addTrust(ctx.catalog, id.minisignPublicKey, { name: selfTrustName(ctx.catalog, name, id.keyId), recipient: id.recipient, self: true });
  return whoami(ctx);
}

/** The home's identity. @throws NO_IDENTITY */
export function whoami(ctx: Context): WhoAmI {
  const id: Identity = ctx.identity();
  return {
    name: id.name,
    recipient: id.recipient,
    minisignPublicKey: id.minisignPublicKey,
    keyId: id.keyId,
    identityFile: id.identityFile,
    minisignPublicKeyFile: id.minisignPublicKeyFile,
    home: ctx.home,
  };
}

/** The trusted keys, own key first; the own entry carries the home's recipient. */
export function trustList(ctx: Context): TrustedKey[] {
  if (hasIdentity(ctx.home)) {
    try {
      const me = ctx.identity();
      fillRecipient(ctx.catalog, me.keyId, me.recipient);
    } catch {
      // An unreadable identity is reported by the commands that need it; the list stays readable.
    }
  }
  return listTrust(ctx.catalog);
}
