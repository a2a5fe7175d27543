/**
 * The Electron main process: one window showing the renderer from file://,
 * locked down (contextIsolation, sandbox, no Node in the page, web security
 * on, no navigation, no new windows, no webviews, no permissions), and the
 * engine host behind the IPC handlers (ipc.ts).
 *
 * The engine runs in a child process started with the system's Node
 * (RemoteHost), not in this process: its native modules (better-sqlite3,
 * zstd-napi) are compiled for Node's ABI and do not load in Electron.
 * $BRICKPOST_NODE names the Node to use, else `node` on PATH;
 * $BRICKPOST_HOME the home, else the per-user one.
 */
import { app, BrowserWindow, dialog, session } from 'electron';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { HostPort } from '../host/host.js';
import { RemoteHost } from '../host/remote.js';
import { registerIpc, unregisterIpc } from './ipc.js';

const PAGE = fileURLToPath(new URL('../../../renderer/index.html', import.meta.url));
const PAGE_URL = pathToFileURL(PAGE).href;
const PRELOAD = fileURLToPath(new URL('../preload/preload.cjs', import.meta.url));

let win: BrowserWindow | null = null;
let host: HostPort | null = null;

function createWindow(): BrowserWindow {
  const w = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'brickpost',
    show: false,
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  w.webContents.on('will-navigate', (e) => e.preventDefault());
  w.webContents.on('will-redirect', (e) => e.preventDefault());
  w.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  w.once('ready-to-show', () => w.show());
  w.on('closed', () => {
    win = null;
  });
  void w.loadFile(PAGE);
  return w;
}

async function start(): Promise<void> {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, grant) => grant(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  try {
    host = await RemoteHost.start();
  } catch (e) {
    const err = e as { message?: string; hint?: string };
    dialog.showErrorBox('brickpost cannot start its engine', `${err.message ?? String(e)}${err.hint ? `\n\n${err.hint}` : ''}`);
    app.exit(5);
    return;
  }
  registerIpc(host, () => win, PAGE_URL);
  win = createWindow();
}

app.on('web-contents-created', (_e, contents) => {
  contents.on('will-attach-webview', (ev) => ev.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

app.on('window-all-closed', () => app.quit());

let quitting = false;
app.on('before-quit', (e) => {
  if (quitting || host === null) return;
  // Let running jobs cancel and the engine close its catalog before exiting.
  e.preventDefault();
  quitting = true;
  unregisterIpc();
  void host.close().finally(() => app.quit());
});

if (!app.requestSingleInstanceLock()) app.quit();
else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  void app.whenReady().then(start);
}
