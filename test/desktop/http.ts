/**
 * A small HTTP client for the UI server tests: raw paths (no URL
 * normalisation, so escape attempts reach the server as sent), any Host or
 * Origin header, and Server-Sent Events read into a list.
 */
import { request } from 'node:http';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to 127.0.0.1:port with the raw `path`. */
export function http(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = { Host: `127.0.0.1:${port}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...opts.headers };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? (body !== undefined ? 'POST' : 'GET'), headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One SSE message. */
export interface SseMessage {
  event: string;
  data: any;
}

/**
 * Reads a job's event stream until it ends; `onMessage` sees each message as
 * it arrives (to cancel after the first progress, say).
 */
export function readEvents(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  onMessage: (m: SseMessage) => void = () => undefined,
): Promise<{ status: number; contentType: string | undefined; messages: SseMessage[] }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const messages: SseMessage[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === undefined || data === undefined) continue;
          const m = { event, data: JSON.parse(data) };
          messages.push(m);
          onMessage(m);
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], messages }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
