/**
 * The engine child process: a DesktopHost driven over the Node IPC channel
 * (see wire.ts). Started by RemoteHost with the system's Node, because the
 * engine's native modules (better-sqlite3, zstd-napi) are built for Node's
 * ABI, not Electron's. Exits when its parent goes away.
 */
import { tuneProcess } from '@brickpost/engine';
import { toWireError } from './errors.js';
import { DesktopHost } from './host.js';
import type { FromChild, ToChild } from './wire.js';

function send(m: FromChild): void {
  if (process.connected) process.send!(m);
}

function main(): void {
  if (!process.send) {
    process.stderr.write('brickpost: error: the engine host must be started by the desktop app (no IPC channel)\n');
    process.exit(2);
  }
  tuneProcess();
  let host: DesktopHost;
  try {
    host = new DesktopHost({});
  } catch (e) {
    send({ t: 'fatal', error: toWireError(e) });
    process.disconnect();
    return;
  }
  process.on('message', (raw: ToChild) => {
    const m = raw;
    if (m.t === 'cancel') {
      void host.cancel(m.jobId);
      return;
    }
    const answer =
      m.t === 'call'
        ? host.call(m.method, m.args)
        : m.t === 'job'
          ? host.job(m.jobId, m.method, m.args, (event) => send({ t: 'event', id: m.id, event }))
          : Promise.reject(new Error(`unknown message ${JSON.stringify((m as { t?: unknown }).t)}`));
    answer.then(
      (value) => send({ t: 'ok', id: m.id, value: value === undefined ? null : value }),
      (e: unknown) => send({ t: 'err', id: (m as { id: number }).id, error: toWireError(e) }),
    );
  });
  process.on('disconnect', () => {
    void host.close().finally(() => process.exit(0));
  });
  send({ t: 'ready', home: host.home });
}

main();
