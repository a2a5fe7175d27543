/**
 * Engine sessions for commands: open the engine on the chosen home, run,
 * and always close it. Only command modules import this file, so the engine
 * (and its native modules) load only when a command runs.
 */
import { Engine, tuneProcess } from '@brickpost/engine';
import type { Context } from './context.js';

/**
 * Opens the engine on `ctx.home` (else BRICKPOST_HOME, else the default
 * home), runs `fn` and closes the engine. With `create: false` (commands
 * that only read: verify, report, custody, label) a home that does not
 * exist yet is not created: the engine works on an empty catalog in memory.
 * Rethrows whatever `fn` or Engine.open throws, and what closing throws
 * (a failed sync of the catalog) when `fn` succeeded.
 */
export async function withEngine<T>(ctx: Context, fn: (engine: Engine) => Promise<T> | T, opts: { create?: boolean } = {}): Promise<T> {
  tuneProcess();
  const engine = Engine.open({ ...(ctx.home !== undefined ? { home: ctx.home } : {}), ...(opts.create === false ? { create: false } : {}) });
  let result: T;
  try {
    result = await fn(engine);
  } catch (e) {
    try {
      engine.close();
    } catch {
      // The command's own failure is the one to report; closing after it is best effort.
    }
    throw e;
  }
  // Closing syncs the catalog: its failure fails the command, which must not report success.
  engine.close();
  return result;
}
