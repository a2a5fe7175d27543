/**
 * The preload of the desktop window (sandboxed, so CommonJS and no imports
 * but 'electron'). It exposes exactly one object, `window.brickpost`, with one
 * function per DesktopApi method, made from the table of methods the main
 * process gives; each invokes the main process's handler of the same name
 * (channel `brickpost:METHOD`). No ipcRenderer reaches the page.
 *
 * Failures reject with a plain object
 * `{name, code, message, hint, exitCode, path}`: contextBridge copies an Error's message only, so an Error would lose
 * the code and hint the renderer shows.
 */
// CommonJS written as such: verbatimModuleSyntax emits imports as written.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload is CommonJS
import electron = require('electron');
import type { JobListener } from '../shared/api.js';
import type { CallShape } from '../shared/methods.js';

type Answer = { ok: true; value: unknown } | { ok: false; error: Record<string, unknown> };

const listeners = new Map<string, JobListener>();

electron.ipcRenderer.on('brickpost:event', (_e, jobId: unknown, event: unknown) => {
  if (typeof jobId !== 'string') return;
  try {
    listeners.get(jobId)?.(event as Parameters<JobListener>[0]);
  } catch {
    // A listener's failure must not stop the job's other events.
  }
});

async function invoke(method: string, ...args: unknown[]): Promise<never> {
  const answer = (await electron.ipcRenderer.invoke(`brickpost:${method}`, ...args)) as Answer;
  if (answer.ok) return answer.value as never;
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- contextBridge would keep only an Error's message
  throw { ...answer.error, name: 'BrickpostError' };
}

async function job(method: string, jobId: string, opts: unknown, onEvent: JobListener): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- contextBridge would keep only an Error's message
  if (typeof jobId !== 'string') throw { name: 'BrickpostError', code: 'USAGE', exitCode: 2, message: 'job id must be a string' };
  listeners.set(jobId, onEvent);
  try {
    return await invoke(method, jobId, opts);
  } finally {
    listeners.delete(jobId);
  }
}

function method(name: string, shape: CallShape): (...args: never[]) => Promise<unknown> {
  switch (shape) {
    case 'none':
      return () => invoke(name);
    case 'opts':
      return (o: unknown) => invoke(name, o);
    case 'job':
      return (id: string, o: unknown, on: JobListener) => job(name, id, o, on);
    case 'jobId':
      return (id: string) => invoke(name, id);
  }
}

// The table of methods (shared/methods.ts METHODS) comes from the main
// process: a sandboxed preload can require nothing but 'electron'.
const table = electron.ipcRenderer.sendSync('brickpost:methods') as Record<string, CallShape>;
const api: Record<string, unknown> = { host: 'electron' };
for (const [name, shape] of Object.entries(table)) api[name] = method(name, shape);

electron.contextBridge.exposeInMainWorld('brickpost', api);
