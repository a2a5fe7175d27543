/** `brickpost whoami`: show this home's identity. */
import type { CommandRun } from '../context.js';
import { printIdentity } from '../identity.js';
import { withEngine } from '../session.js';

/** Prints the identity. Throws NO_IDENTITY (exit 2) before `keygen`. */
export const run: CommandRun = async (ctx, inv) => {
  const who = await withEngine(ctx, (engine) => engine.whoami());
  await printIdentity(ctx, who, inv.values.contact === true);
  return 0;
};
