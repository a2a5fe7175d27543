/**
 * startUiServer: the loopback web server of `brickpost ui`. It serves the
 * desktop renderer and the DesktopApi over HTTP to a browser on this machine
 * only: bound to 127.0.0.1, every request checked by auth.ts (the page
 * itself included: without the token everything is 403), and every answer
 * sent with a strict Content-Security-Policy.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrickpostError } from '@brickpost/engine/api';
import { DesktopHost, type HostPort } from '../host/host.js';
import { handleApi } from './api.js';
import { authorize, newToken, sessionCookie } from './auth.js';
import { ServerJobs } from './jobs.js';
import { RENDERER_ROOT, serveStatic, staticPath } from './static.js';

/** What startUiServer serves, and where. */
export interface UiServerOptions {
  /** The home to open (default: as Engine.open); closed by close. */
  home?: string;
  /** 0 or absent: any free port. */
  port?: number;
  /** The static folder (default: the desktop renderer). */
  root?: string;
}

/** A running UI server. */
export interface UiServer {
  /** The link to open: http://127.0.0.1:PORT/?token=T. */
  url: string;
  port: number;
  token: string;
  /** Cancels running jobs, ends event streams and stops listening. */
  close(): Promise<void>;
}

/**
 * The policy of every answer. Scripts only from this server (no inline
 * script); inline styles are allowed because verification reports and labels
 * are standalone HTML with their own <style>, shown in a sandboxed
 * `<iframe srcdoc>`, which inherits this policy; data: images for their QR codes.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self' about:",
  "child-src 'self' about:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/**
 * Starts the server on 127.0.0.1 and resolves once it listens.
 * @throws BrickpostError IO (port in use), and Engine.open's errors
 */
export async function startUiServer(opts: UiServerOptions = {}): Promise<UiServer> {
  const token = newToken();
  const host: HostPort = new DesktopHost(opts.home !== undefined ? { home: opts.home } : {});
  const jobs = new ServerJobs(host);
  const root = opts.root ?? RENDERER_ROOT;
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const verdict = authorize(req, url, port, token);
    if (!verdict.ok) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('forbidden\n');
      return;
    }
    if (verdict.viaUrl) res.setHeader('Set-Cookie', sessionCookie(port, token));
    const rawPath = (req.url ?? '/').split('?')[0]!;
    if (rawPath.startsWith('/api/')) return handleApi(req, res, rawPath, host, jobs);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    const rel = staticPath(rawPath);
    if (rel === null) {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('bad path\n');
      return;
    }
    await serveStatic(res, root, rel, req.method === 'HEAD');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('internal error\n');
      else res.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: opts.port ?? 0, exclusive: true }, () => resolve());
    });
  } catch (e) {
    await host.close();
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new BrickpostError('IO', `port ${opts.port} on 127.0.0.1 is already in use`, { hint: 'choose another --port, or leave it out to use a free one' });
    throw e;
  }
  port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: () =>
      (closing ??= (async () => {
        jobs.close();
        const stopped = new Promise<void>((r) => server.close(() => r()));
        server.closeAllConnections();
        await stopped;
        await host.close();
      })()),
  };
}
