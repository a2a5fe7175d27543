/** `brickpost keygen`: create this home's identity. */
import { BrickpostError, isBrickpostError } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { flag, str } from '../context.js';
import { commandLine } from '../format.js';
import { printIdentity } from '../identity.js';
import { withEngine } from '../session.js';

/** Creates the identity and prints it. Throws IDENTITY_EXISTS (exit 2) without --force. */
export const run: CommandRun = async (ctx, inv) => {
  const name = str(inv, 'name');
  const force = flag(inv, 'force');
  const who = await withEngine(ctx, (engine) => {
    try {
      return engine.keygen(name !== undefined ? { name, force } : { force });
    } catch (e) {
      if (isBrickpostError(e, 'IDENTITY_EXISTS') && e.hint === undefined) {
        const opts = e.path !== undefined ? { path: e.path } : {};
        throw new BrickpostError(e.code, e.message, { ...opts, cause: e, hint: 'use --force to replace it; the old keys are then lost' });
      }
      throw e;
    }
  });
  ctx.out.info(`created a new identity in ${who.home}`);
  await printIdentity(ctx, who);
  if (!ctx.json && !ctx.quiet) {
    const whoami = commandLine([...(ctx.home !== undefined ? ['--home', ctx.home] : []), 'whoami', '--contact']);
    ctx.out.hint(
      `send those you exchange drives with your contact text (your recipient age1… for those who send you drives, your public key RW… for those who receive them); this prints it: ${whoami}`,
    );
  }
  return 0;
};
