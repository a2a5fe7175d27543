/**
 * The Electron preload, run as Electron's sandbox runs it (a CommonJS
 * function of exports, require and module) with a stand-in for the
 * 'electron' module, since no Electron binary can run here: it requires
 * nothing but 'electron', takes the table of methods from the main process
 * (as ipc.ts answers it), exposes exactly one object, `brickpost`, with one
 * function per DesktopApi method and no IPC object, routes each call to the
 * main handler of the same name, and turns failures into `{code, hint}`.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { ALL_METHODS, JOB_METHODS, METHODS } from '@brickpost/desktop/host';
import { ROOT } from '../support.js';

const PRELOAD = join(ROOT, 'apps', 'desktop', 'dist', 'src', 'preload', 'preload.cjs');

test('the preload exposes one object with exactly the API methods, over IPC channels of the same names', async () => {
  const exposed = new Map<string, Record<string, unknown>>();
  const required: string[] = [];
  const invoked: Array<[string, unknown[]]> = [];
  const listeners = new Map<string, (...a: unknown[]) => void>();
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => exposed.set(key, api) },
    ipcRenderer: {
      sendSync: (channel: string) => {
        if (channel !== 'brickpost:methods') throw new Error(`unexpected synchronous message on ${channel}`);
        return JSON.parse(JSON.stringify(METHODS)) as unknown;
      },
      on: (channel: string, fn: (...a: unknown[]) => void) => listeners.set(channel, fn),
      invoke: async (channel: string, ...args: unknown[]) => {
        invoked.push([channel, args]);
        if (channel === 'brickpost:trustList') return { ok: true, value: [{ keyId: 'K' }] };
        if (channel === 'brickpost:pack') {
          listeners.get('brickpost:event')?.({}, args[0], { type: 'progress', bytesDone: 5 });
          listeners.get('brickpost:event')?.({}, 'other-job', { type: 'progress', bytesDone: 9 });
          return { ok: true, value: { files: 1 } };
        }
        return { ok: false, error: { name: 'BrickpostError', code: 'NOT_FOUND', message: 'no such thing', hint: 'look elsewhere', exitCode: 2 } };
      },
    },
  };
  const wrapper = runInNewContext(`(function (exports, require, module) {${readFileSync(PRELOAD, 'utf8')}\n})`, {}) as (
    e: unknown,
    r: (n: string) => unknown,
    m: unknown,
  ) => void;
  const module = { exports: {} };
  wrapper(
    module.exports,
    (name) => {
      required.push(name);
      if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
      return electron;
    },
    module,
  );

  assert.deepEqual(required, ['electron']);
  assert.deepEqual([...exposed.keys()], ['brickpost']);
  const api = exposed.get('brickpost')!;
  assert.equal(api.host, 'electron');
  const functions = Object.keys(api)
    .filter((k) => typeof api[k] === 'function')
    .sort();
  assert.deepEqual(functions, [...ALL_METHODS].sort());
  assert.deepEqual(
    Object.keys(api).filter((k) => typeof api[k] !== 'function'),
    ['host'],
  );

  assert.deepEqual(await (api.trustList as () => Promise<unknown>)(), [{ keyId: 'K' }]);
  assert.deepEqual(invoked.at(-1), ['brickpost:trustList', []]);
  const events: unknown[] = [];
  const packed = await (api.pack as (id: string, o: unknown, on: (e: unknown) => void) => Promise<unknown>)('job-1', { source: '/s' }, (e) => events.push(e));
  assert.deepEqual(packed, { files: 1 });
  assert.deepEqual(invoked.at(-1), ['brickpost:pack', ['job-1', { source: '/s' }]]);
  assert.deepEqual(events, [{ type: 'progress', bytesDone: 5 }], "only this job's events reach its listener");

  const failed = await (api.history as (o: unknown) => Promise<unknown>)({ dest: '/d' }).then(
    () => null,
    (e: unknown) => e as Record<string, unknown>,
  );
  assert.equal(failed?.name, 'BrickpostError');
  assert.equal(failed?.code, 'NOT_FOUND');
  assert.equal(failed?.hint, 'look elsewhere');
  assert.equal(failed?.message, 'no such thing');
  assert.equal(failed?.exitCode, 2);
  for (const m of ALL_METHODS) {
    if ((JOB_METHODS as readonly string[]).includes(m) || m === 'cancel') continue;
    await (api[m] as (o?: unknown) => Promise<unknown>)({}).catch(() => undefined);
    assert.equal(invoked.at(-1)![0], `brickpost:${m}`, m);
  }
});
