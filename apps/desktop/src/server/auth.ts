/**
 * Who may talk to the UI server. A request is authorised when it carries the
 * server's token, in the URL (`?token=T`, how the printed link opens the
 * page) or in the cookie set on that first page load (HttpOnly,
 * SameSite=Strict), and its Host header names this server (127.0.0.1:PORT
 * or localhost:PORT: a DNS-rebinding page carries its own host name). A
 * state-changing POST must also come from this origin when the browser says
 * where it comes from (Origin, Sec-Fetch-Site). Tokens compare in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A fresh token: 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time equality of two strings of any length (compares their SHA-256). */
export function sameToken(given: string, token: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** The cookie's name: per port, since browsers share cookies between ports of a host. */
export function cookieName(port: number): string {
  return `brickpost_ui_${port}`;
}

/** The Set-Cookie value that lets the page's later requests in without the token in their URLs. */
export function sessionCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

function cookieValue(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The origins this server answers as. */
export function ownOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/** How a request fared: allowed, and whether the token came in its URL. */
export type Verdict = { ok: true; viaUrl: boolean } | { ok: false; reason: string };

/** Decides whether a request may be served. Never throws. */
export function authorize(req: IncomingMessage, url: URL, port: number, token: string): Verdict {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!ownOrigins(port).some((o) => o === `http://${host}`)) return { ok: false, reason: 'host' };
  const fromUrl = url.searchParams.get('token');
  const fromCookie = cookieValue(req, cookieName(port));
  const viaUrl = fromUrl !== null && sameToken(fromUrl, token);
  if (!viaUrl && !(fromCookie !== null && sameToken(fromCookie, token))) return { ok: false, reason: 'token' };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const origin = req.headers.origin;
    if (origin !== undefined && !ownOrigins(port).includes(origin)) return { ok: false, reason: 'origin' };
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return { ok: false, reason: 'site' };
  }
  return { ok: true, viaUrl };
}
