/**
 * RemoteHost: a HostPort whose engine runs in a child process started with
 * the system's Node (child_process.fork with execPath). Electron's main
 * process uses it because the engine's native modules (better-sqlite3,
 * zstd-napi) are compiled for Node's ABI and cannot load in Electron; the
 * child runs the same DesktopHost (child.ts), calls and events are relayed
 * as JSON messages (wire.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BrickpostError, quote } from '@brickpost/engine/api';
import type { JobListener } from '../shared/api.js';
import type { JobMethod, QuickMethod } from '../shared/methods.js';
import { fromWireError } from './errors.js';
import type { HostPort } from './host.js';
import type { FromChild, ToChild } from './wire.js';

/** Node flags of the engine process, as the CLI's launcher gives them (apps/cli/bin/brickpost.js): a new space of two 4 MB semi-spaces. */
const ENGINE_NODE_FLAGS = ['--max-semi-space-size=4'];

/** How to start the engine child process. */
export interface RemoteHostOptions {
  /** The home to open (default: the child's $BRICKPOST_HOME, else the per-user home). */
  home?: string;
  /** The Node executable: default $BRICKPOST_NODE, else `node` on PATH. */
  nodePath?: string;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  onEvent?: JobListener;
}

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));

/** The host in a Node child process. */
export class RemoteHost implements HostPort {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private exited: Error | null = null;

  private constructor(
    private readonly child: ChildProcess,
    readonly home: string,
  ) {
    child.on('message', (m: FromChild) => this.receive(m));
    child.on('exit', (code, signal) => {
      this.exited = new BrickpostError('IO', `the engine process ended (${signal ?? `exit code ${code}`})`, {
        hint: 'restart the app; if it happens again, run the same step with the brickpost command to see why',
      });
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
    });
  }

  /**
   * Starts the child and waits until its engine is open.
   * @throws BrickpostError DEPENDENCY (no Node found), or the engine's open error
   */
  static start(opts: RemoteHostOptions = {}): Promise<RemoteHost> {
    const execPath = opts.nodePath ?? (process.env.BRICKPOST_NODE || 'node');
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Inherited from an Electron parent, this would change how some Node builds start.
    delete env.ELECTRON_RUN_AS_NODE;
    if (opts.home !== undefined) env.BRICKPOST_HOME = opts.home;
    const child = fork(CHILD, [], { execPath, execArgv: ENGINE_NODE_FLAGS, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
    return new Promise((resolve, reject) => {
      const fail = (e: unknown): void => {
        child.kill();
        reject(e);
      };
      child.once('error', (e: NodeJS.ErrnoException) => {
        fail(
          e.code === 'ENOENT'
            ? new BrickpostError('DEPENDENCY', `cannot start the engine: node ${quote(execPath)} was not found`, {
                hint: 'install Node.js 20 or later, or set BRICKPOST_NODE to its path',
              })
            : e,
        );
      });
      child.once('exit', (code) =>
        reject(
          new BrickpostError('DEPENDENCY', `the engine process ended before it was ready (exit code ${code})`, {
            hint: `check that ${quote(execPath)} is Node.js 20 or later (set BRICKPOST_NODE)`,
          }),
        ),
      );
      child.once('message', (m: FromChild) => {
        if (m.t === 'ready') resolve(new RemoteHost(child, m.home));
        else if (m.t === 'fatal') fail(fromWireError(m.error));
        else fail(new Error(`unexpected first message ${quote(m.t)} from the engine process`));
      });
    });
  }

  call(method: QuickMethod, args: unknown[]): Promise<unknown> {
    return this.request((id) => ({ t: 'call', id, method, args }));
  }

  job(jobId: string, method: JobMethod, args: unknown[], onEvent: JobListener): Promise<unknown> {
    return this.request((id) => ({ t: 'job', id, jobId, method, args }), onEvent);
  }

  async cancel(jobId: string): Promise<void> {
    if (this.exited === null && this.child.connected) this.child.send({ t: 'cancel', jobId } satisfies ToChild);
  }

  /** Disconnects; the child cancels its jobs, closes the engine and exits. Resolves when it has. */
  async close(): Promise<void> {
    if (this.exited !== null || this.child.exitCode !== null) return;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }

  private request(make: (id: number) => ToChild, onEvent?: JobListener): Promise<unknown> {
    if (this.exited !== null) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, onEvent ? { resolve, reject, onEvent } : { resolve, reject });
      try {
        this.child.send(make(id));
      } catch (e) {
        this.pending.delete(id);
        reject(e);
      }
    });
  }

  private receive(m: FromChild): void {
    if (m.t === 'ready' || m.t === 'fatal') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.t === 'event') {
      p.onEvent?.(m.event);
      return;
    }
    this.pending.delete(m.id);
    if (m.t === 'ok') p.resolve(m.value);
    else p.reject(fromWireError(m.error));
  }
}
