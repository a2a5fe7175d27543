/**
 * The renderer's files (apps/desktop/renderer: index.html, css, the
 * renderer's TypeScript and its compiled modules under web/), served
 * read-only: `/` is index.html, no directory listing, no dot files,
 * nothing outside the root (`..` segments, encoded or not, backslashes and
 * NUL are refused; a link that leads out of the root is refused after
 * realpath).
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The renderer folder of this package (dist/src/server → ../../../renderer). */
export const RENDERER_ROOT = fileURLToPath(new URL('../../../renderer/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The content type of a file name (application/octet-stream when unknown). */
export function contentType(name: string): string {
  return TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The relative file a URL path names, or null when the path is not one this
 * server serves (escape attempts, dot files, bad encoding).
 */
export function staticPath(rawPath: string): string | null {
  let p: string;
  try {
    p = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (!p.startsWith('/') || p.includes('\0') || p.includes('\\')) return null;
  if (p === '/') return 'index.html';
  const segments = p.slice(1).split('/');
  if (segments.some((s) => s === '' || s.startsWith('.') || s.includes(':'))) return null;
  return segments.join('/');
}

/**
 * Serves `rel` from `root` with its content type; 404 when it is missing, not
 * a regular file, or outside the root. Headers set before are kept.
 */
export async function serveStatic(res: ServerResponse, root: string, rel: string, head: boolean): Promise<void> {
  const realRoot = await realpath(root).catch(() => null);
  const full = realRoot === null ? null : await realpath(join(realRoot, rel)).catch(() => null);
  const st = full === null ? null : await stat(full).catch(() => null);
  if (full === null || realRoot === null || !full.startsWith(realRoot + sep) || !st?.isFile()) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
    return;
  }
  res.writeHead(200, { 'Content-Type': contentType(full), 'Content-Length': st.size });
  if (head) {
    res.end();
    return;
  }
  const stream = createReadStream(full);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
