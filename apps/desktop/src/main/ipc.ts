/**
 * The IPC handlers of the main process: one per DesktopApi method (channel
 * `brickpost:METHOD`), each checking that the call comes from our window's
 * own page (not a frame, not another page it navigated to) and relaying it to
 * the engine host. Answers are `{ok, value}` or `{ok: false, error}` (a
 * WireError): an exception thrown by a handler would reach the page as a
 * bare message. Job events go back on `brickpost:event` (jobId, event). The
 * preload asks for the table of methods on `brickpost:methods`.
 */
import { dialog, ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { BrickpostError } from '@brickpost/engine/api';
import { toWireError } from '../host/errors.js';
import type { HostPort } from '../host/host.js';
import { ALL_METHODS, JOB_METHODS, METHODS, QUICK_METHODS } from '../shared/methods.js';

type Answer = { ok: true; value: unknown } | { ok: false; error: ReturnType<typeof toWireError> };

async function answer(fn: () => Promise<unknown>): Promise<Answer> {
  try {
    const value = await fn();
    return { ok: true, value: value === undefined ? null : value };
  } catch (e) {
    return { ok: false, error: toWireError(e) };
  }
}

/**
 * Registers the handlers. `pageUrl` is the file:// URL of the renderer's
 * index.html: calls from any other document are refused.
 */
export function registerIpc(host: HostPort, win: () => BrowserWindow | null, pageUrl: string): void {
  const checkSender = (event: IpcMainInvokeEvent): void => {
    const w = win();
    const frame = event.senderFrame;
    if (!w || event.sender !== w.webContents || !frame || frame !== w.webContents.mainFrame || frame.url.split(/[?#]/)[0] !== pageUrl) {
      throw new BrickpostError('PERMISSION', 'this page may not use the brickpost api');
    }
  };
  for (const method of QUICK_METHODS) {
    ipcMain.handle(`brickpost:${method}`, (event, opts: unknown) =>
      answer(async () => {
        checkSender(event);
        if (method === 'chooseFolder') return chooseFolder(win(), opts);
        return host.call(method, opts === undefined ? [] : [opts]);
      }),
    );
  }
  for (const method of JOB_METHODS) {
    ipcMain.handle(`brickpost:${method}`, (event, jobId: unknown, opts: unknown) =>
      answer(async () => {
        checkSender(event);
        const sender = event.sender;
        return host.job(String(jobId), method, [opts], (ev) => {
          if (!sender.isDestroyed()) sender.send('brickpost:event', jobId, ev);
        });
      }),
    );
  }
  // The preload's table of methods, asked for synchronously as it starts. The
  // names are no secret: every call above checks its sender.
  ipcMain.on('brickpost:methods', (event) => {
    event.returnValue = METHODS;
  });
  ipcMain.handle('brickpost:cancel', (event, jobId: unknown) =>
    answer(async () => {
      checkSender(event);
      await host.cancel(String(jobId));
    }),
  );
}

/** Removes every handler registerIpc added. */
export function unregisterIpc(): void {
  for (const m of ALL_METHODS) ipcMain.removeHandler(`brickpost:${m}`);
  ipcMain.removeAllListeners('brickpost:methods');
}

async function chooseFolder(w: BrowserWindow | null, opts: unknown): Promise<string | null> {
  const title =
    typeof opts === 'object' && opts !== null && typeof (opts as { title?: unknown }).title === 'string'
      ? (opts as { title: string }).title
      : 'Choose a folder';
  const props: Electron.OpenDialogOptions = { title, properties: ['openDirectory', 'createDirectory'] };
  const r = w ? await dialog.showOpenDialog(w, props) : await dialog.showOpenDialog(props);
  return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0]!;
}
