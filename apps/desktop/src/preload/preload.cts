/**
 * The preload of the desktop window (sandboxed, so CommonJS and no imports
 * but 'electron'). It exposes exactly one object, `window.brickpost`, with one
 * function per DesktopApi method; each invokes the main process's handler of
 * the same name (channel `brickpost:METHOD`). No ipcRenderer reaches the page.
 *
 * Failures reject with a plain object
 * `{name, code, message, hint, exitCode, path}`: contextBridge copies an Error's message only, so an Error would lose
 * the code and hint the renderer shows.
 */
// CommonJS written as such: verbatimModuleSyntax emits imports as written.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload is CommonJS
import electron = require('electron');
import type { DesktopApi, JobListener } from '../shared/api.js';

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

const api: DesktopApi = {
  host: 'electron',
  whoami: () => invoke('whoami'),
  keygen: (o) => invoke('keygen', o),
  trustList: () => invoke('trustList'),
  trustAdd: (o) => invoke('trustAdd', o),
  trustRemove: (o) => invoke('trustRemove', o),
  drives: () => invoke('drives'),
  chooseFolder: (o) => invoke('chooseFolder', o),
  listFolder: (o) => invoke('listFolder', o),
  sourceInfo: (o) => invoke('sourceInfo', o),
  plan: (o) => invoke('plan', o),
  shipmentFolder: (o) => invoke('shipmentFolder', o),
  pack: (id, o, on) => job('pack', id, o, on),
  verify: (id, o, on) => job('verify', id, o, on),
  ingest: (id, o, on) => job('ingest', id, o, on),
  extract: (id, o, on) => job('extract', id, o, on),
  cancel: (id) => invoke('cancel', id),
  receipt: (o) => invoke('receipt', o),
  history: (o) => invoke('history', o),
  rollback: (o) => invoke('rollback', o),
  resume: (o) => invoke('resume', o),
  report: (o) => invoke('report', o),
  label: (o) => invoke('label', o),
  custody: (o) => invoke('custody', o),
};

electron.contextBridge.exposeInMainWorld('brickpost', api);
