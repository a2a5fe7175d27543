/**
 * The browser side of `brickpost ui`: defines `window.brickpost`, the
 * DesktopApi (one function per entry of the table of methods), over the UI
 * server's HTTP API (POST /api/call; POST /api/job
 * and its Server-Sent Events; POST /api/job/ID/cancel). It does nothing
 * where `window.brickpost` already exists (Electron's preload defined it).
 * Every failure rejects with a DesktopError-shaped Error. DOM only, no Node.
 *
 * The token of the printed link is taken from the address once and sent
 * with every request; it is then removed from the address bar (the session
 * cookie lets a reload in).
 */
import type { DesktopApi, DesktopError, JobListener } from '../../src/shared/api.js';
import { ALL_METHODS, METHODS } from '../../src/shared/methods.js';

interface Wire {
  code?: unknown;
  message?: unknown;
  hint?: unknown;
  exitCode?: unknown;
  path?: unknown;
}

function desktopError(w: Wire): DesktopError {
  const e = new Error(typeof w.message === 'string' ? w.message : 'the request failed') as DesktopError;
  e.name = 'BrickpostError';
  e.code = typeof w.code === 'string' ? w.code : 'INTERNAL';
  e.exitCode = typeof w.exitCode === 'number' ? w.exitCode : 70;
  if (typeof w.hint === 'string') e.hint = w.hint;
  if (typeof w.path === 'string') e.path = w.path;
  return e;
}

function lostConnection(what: string): DesktopError {
  return desktopError({
    code: 'IO',
    exitCode: 5,
    message: `lost the connection to brickpost ui (${what})`,
    hint: "check that 'brickpost ui' is still running, then reload the page",
  });
}

function install(): void {
  const w = window as unknown as { brickpost?: DesktopApi };
  if (w.brickpost !== undefined) return;

  const token = new URLSearchParams(location.search).get('token');
  if (token !== null) history.replaceState(history.state, '', location.pathname + location.hash);
  const withToken = (path: string): string => (token === null ? path : `${path}?token=${encodeURIComponent(token)}`);

  async function post(path: string, body: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(withToken(path), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        credentials: 'same-origin',
      });
    } catch {
      throw lostConnection('no answer');
    }
    let data: { value?: unknown; error?: Wire } | null = null;
    try {
      data = (await res.json()) as { value?: unknown; error?: Wire };
    } catch {
      // Not JSON: a 403 or a proxy's page; reported below.
    }
    if (data?.error) throw desktopError(data.error);
    if (!res.ok || data === null) throw lostConnection(`HTTP ${res.status}`);
    return data.value;
  }

  const call = (method: string, ...args: unknown[]): Promise<never> => post('/api/call', { method, args }) as Promise<never>;

  async function job(method: string, jobId: string, opts: unknown, onEvent: JobListener): Promise<never> {
    await post('/api/job', { jobId, method, args: [opts] });
    let res: Response;
    try {
      res = await fetch(withToken(`/api/job/${encodeURIComponent(jobId)}/events`), { credentials: 'same-origin' });
    } catch {
      throw lostConnection('no answer');
    }
    if (!res.ok || res.body === null) throw lostConnection(`HTTP ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw lostConnection('the job stream ended early');
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data === '') continue;
        const parsed = JSON.parse(data) as unknown;
        if (event === 'result') {
          void reader.cancel();
          return parsed as never;
        }
        if (event === 'error') {
          void reader.cancel();
          throw desktopError(parsed as Wire);
        }
        if (event === 'progress' || event === 'warning') {
          try {
            onEvent(parsed as Parameters<JobListener>[0]);
          } catch {
            // A listener's failure must not end the job's stream.
          }
        }
      }
    }
  }

  const cancel = async (id: string): Promise<void> => {
    await post(`/api/job/${encodeURIComponent(id)}/cancel`, {});
  };
  const api: Record<string, unknown> = { host: 'browser' };
  for (const m of ALL_METHODS) {
    const shape = METHODS[m];
    api[m] =
      m === 'chooseFolder'
        ? async () => null
        : shape === 'job'
          ? (id: string, o: unknown, on: JobListener) => job(m, id, o, on)
          : shape === 'jobId'
            ? cancel
            : shape === 'none'
              ? () => call(m)
              : (o: unknown) => call(m, o);
  }
  Object.defineProperty(window, 'brickpost', { value: Object.freeze(api), writable: false, configurable: false, enumerable: true });
}

install();

export {};
