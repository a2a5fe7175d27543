/**
 * `brickpost ui`: serves the desktop app to a browser on this machine. The
 * server listens on 127.0.0.1 only and answers only requests that carry the
 * random token of the printed link (then a session cookie); see the README's
 * "Desktop app". It runs until Ctrl-C or SIGTERM.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { quote } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { flag, str } from '../context.js';
import { usageError } from '../failure.js';

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, cmd)));
}

/**
 * The command that opens a URL in the user's browser, or null on a machine
 * without a display (a server, an SSH session) or without an opener.
 */
function opener(url: string): [string, string[]] | null {
  if (process.platform === 'darwin') return ['open', [url]];
  if (process.platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return null;
  return onPath('xdg-open') ? ['xdg-open', [url]] : null;
}

/** Starts the server, prints the link and waits for Ctrl-C or SIGTERM. Throws USAGE (bad --port), IO (port in use). */
export const run: CommandRun = async (ctx, inv) => {
  const portText = str(inv, 'port');
  let port = 0;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)
      throw usageError(`--port ${quote(portText)} is not a port number (1 to 65535)`, ctx.command);
    port = Number(portText);
  }
  const { startUiServer } = await import('@brickpost/desktop/server');
  const server = await startUiServer({ ...(ctx.home !== undefined ? { home: ctx.home } : {}), port });
  try {
    if (ctx.json) await ctx.out.document({ url: server.url, port: server.port, token: server.token });
    else await ctx.out.line(server.url);
    await ctx.out.flush();
    ctx.out.info(
      'serving the brickpost app on 127.0.0.1 only; open the link above in a browser on this machine (it holds the access token); press Ctrl-C to stop',
    );
    const open = flag(inv, 'no-open') || ctx.json || !process.stdout.isTTY ? null : opener(server.url);
    if (open) {
      const child = spawn(open[0], open[1], { stdio: 'ignore', detached: true, windowsHide: true });
      child.on('error', () => ctx.out.info('could not open a browser; open the link yourself'));
      child.unref();
    }
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      const stop = (): void => {
        process.off('SIGTERM', stop);
        ctx.signal.removeEventListener('abort', stop);
        resolve();
      };
      process.on('SIGTERM', stop);
      ctx.signal.addEventListener('abort', stop);
    });
  } finally {
    await server.close();
  }
  ctx.out.info('stopped');
  return 0;
};
