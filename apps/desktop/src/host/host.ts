/**
 * The desktop host: the DesktopApi carried out over one Engine (one home).
 * Quick calls answer at once; long jobs are kept by the id the renderer
 * chose, with an AbortController each, so `cancel(jobId)` stops one. Every
 * transport (IPC relay, HTTP server, engine child process) drives a HostPort.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Engine } from '@brickpost/engine';
import { BrickpostError, isBrickpostError, quote, renderReportHtml, type ExtractOptions, type RebuildDriveOptions } from '@brickpost/engine/api';
import type { JobListener } from '../shared/api.js';
import { isJobMethod, isQuickMethod, type JobMethod, type QuickMethod } from '../shared/methods.js';
import { boolField, jobIdArg, objectArg, stringField, stringListField, type Opts } from './args.js';
import { detectDrives } from './drives.js';
import { listFolder, sourceInfo } from './folders.js';
import { shipmentFolder } from './shipment-folder.js';

/** What a transport needs of a host, in process or in a child process. */
export interface HostPort {
  /** Runs a quick method with the renderer's arguments. Rejects with the method's error. */
  call(method: QuickMethod, args: unknown[]): Promise<unknown>;
  /** Runs a job; events go to `onEvent` until the promise settles. Rejects with the job's error. */
  job(jobId: string, method: JobMethod, args: unknown[], onEvent: JobListener): Promise<unknown>;
  /** Stops a running job (it then rejects with CANCELLED); an unknown id is ignored. */
  cancel(jobId: string): Promise<void>;
  /** Cancels every job and releases the engine. */
  close(): Promise<void>;
}

/** Where a host's engine comes from: the home to open (default: as Engine.open). */
export interface HostOptions {
  home?: string;
}

/** The DesktopApi over an Engine in this process. */
export class DesktopHost implements HostPort {
  private readonly engine: Engine;
  private readonly jobs = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  private closed = false;

  /** @throws BrickpostError from Engine.open (PERMISSION, IO, LOCKED, UNSUPPORTED_VERSION) */
  constructor(opts: HostOptions = {}) {
    this.engine = Engine.open(opts.home !== undefined ? { home: opts.home } : {});
  }

  get home(): string {
    return this.engine.home;
  }

  async call(method: QuickMethod, args: unknown[]): Promise<unknown> {
    this.checkOpen();
    if (!isQuickMethod(method)) throw new BrickpostError('USAGE', `unknown method ${quote(String(method))}`);
    if (!Array.isArray(args)) throw new BrickpostError('USAGE', `${method}: arguments must be an array`);
    const e = this.engine;
    switch (method) {
      case 'whoami':
        try {
          return e.whoami();
        } catch (err) {
          if (isBrickpostError(err, 'NO_IDENTITY')) return null;
          throw err;
        }
      case 'keygen':
        return e.keygen({ name: stringField(method, objectArg(method, args), 'name') });
      case 'trustList':
        return e.trustList();
      case 'trustAdd': {
        const o = objectArg(method, args);
        return e.trustAdd(stringField(method, o, 'key'), stringField(method, o, 'name', true), stringField(method, o, 'recipient', true));
      }
      case 'trustRemove':
        return e.trustRemove(stringField(method, objectArg(method, args), 'nameOrKeyId'));
      case 'drives':
        return detectDrives();
      case 'chooseFolder':
        // Only Electron has a native dialog; its main process answers this itself.
        return null;
      case 'listFolder':
        return listFolder(stringField(method, objectArg(method, args, 0, true), 'path', true));
      case 'sourceInfo':
        return sourceInfo(stringField(method, objectArg(method, args), 'path'));
      case 'receipt':
        return this.receipt(objectArg(method, args));
      case 'history':
        return e.history(stringField(method, objectArg(method, args), 'dest'));
      case 'rollback': {
        const o = objectArg(method, args);
        return e.rollback({ dest: stringField(method, o, 'dest'), to: stringField(method, o, 'to') }, () => undefined);
      }
      case 'resume':
        return e.resume(stringField(method, objectArg(method, args), 'dest'), () => undefined);
      case 'plan':
        return e.plan(objectArg(method, args) as never);
      case 'shipmentFolder': {
        const o = objectArg(method, args);
        const shipment = stringField(method, o, 'shipment', true);
        const folder = o.folder === '' ? '' : stringField(method, o, 'folder');
        return shipmentFolder(e, { drive: stringField(method, o, 'drive'), folder, ...(shipment !== undefined ? { shipment } : {}) });
      }
      case 'custody': {
        const o = objectArg(method, args);
        const shipment = stringField(method, o, 'shipment', true);
        return e.custody({ drive: stringField(method, o, 'drive'), ...(shipment !== undefined ? { shipment } : {}) });
      }
      case 'report': {
        const o = objectArg(method, args);
        const shipment = stringField(method, o, 'shipment', true);
        const report = await e.report({ target: stringField(method, o, 'target'), deep: boolField(method, o, 'deep'), ...(shipment !== undefined ? { shipment } : {}) });
        return { report, html: renderReportHtml(report) };
      }
      case 'label': {
        const o = objectArg(method, args);
        const shipment = stringField(method, o, 'shipment', true);
        return e.label({ drive: stringField(method, o, 'drive'), ...(shipment !== undefined ? { shipment } : {}) });
      }
      default:
        return unhandled(method);
    }
  }

  async job(jobId: string, method: JobMethod, args: unknown[], onEvent: JobListener): Promise<unknown> {
    this.checkOpen();
    if (!isJobMethod(method)) throw new BrickpostError('USAGE', `unknown job method ${quote(String(method))}`);
    jobIdArg(jobId);
    if (this.jobs.has(jobId)) throw new BrickpostError('USAGE', `a job with id ${quote(jobId)} is already running`, { hint: 'use a new id for each job' });
    const opts = objectArg(method, Array.isArray(args) ? args : []);
    const controller = new AbortController();
    const sink: JobListener = (ev) => {
      try {
        onEvent(ev);
      } catch {
        // A listener that throws must not break the engine's job (EventSink must not throw).
      }
    };
    const e = this.engine;
    const signal = controller.signal;
    const run = (): Promise<unknown> => {
      switch (method) {
        case 'pack':
          return e.pack(opts as never, sink, signal);
        case 'verify':
          return e.verify(opts as never, sink, signal);
        case 'ingest':
          return e.ingest(opts as never, sink, signal);
        case 'extract':
          return e.extract(extractOptions(opts), sink, signal);
        case 'rebuildDrive':
          return e.rebuildDrive(rebuildOptions(opts), sink, signal);
        default:
          return unhandled(method);
      }
    };
    const done = run();
    this.jobs.set(jobId, { controller, done });
    try {
      const result = await done;
      if (signal.aborted) throw cancelled(jobId);
      return result;
    } catch (err) {
      if (signal.aborted && !isBrickpostError(err, 'CANCELLED')) throw cancelled(jobId);
      throw err;
    } finally {
      this.jobs.delete(jobId);
    }
  }

  async cancel(jobId: string): Promise<void> {
    this.jobs.get(jobId)?.controller.abort();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const running = [...this.jobs.values()];
    for (const j of running) j.controller.abort();
    await Promise.allSettled(running.map((j) => j.done));
    this.engine.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new BrickpostError('USAGE', 'the engine host is closed', { hint: 'restart the app' });
  }

  /** Writes the receipt (default: HOME/receipts/DEST-NAME-TIME.json) and returns it with the file's text. */
  private async receipt(o: Record<string, unknown>): Promise<unknown> {
    const dest = resolve(stringField('receipt', o, 'dest'));
    let out = stringField('receipt', o, 'out', true);
    if (out === undefined) {
      const dir = join(this.engine.home, 'receipts');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      out = join(dir, `${basename(dest).replace(/[^\p{L}\p{N}._-]/gu, '_') || 'dest'}-${stamp}.json`);
    }
    const summary = await this.engine.receipt({ dest, out: resolve(out), deep: boolField('receipt', o, 'deep') });
    return { ...summary, text: await readFile(summary.out, 'utf8') };
  }
}

/** A method in the lists of methods.ts that a switch above does not carry out: a compile error, and USAGE if it ever runs. */
function unhandled(method: never): never {
  throw new BrickpostError('USAGE', `method ${quote(String(method))} is not carried out by this host`);
}

const APPLY_FLAGS = ['samePermissions', 'setid', 'owners', 'acls', 'noXattrs', 'specials', 'outsideLinks'] as const;

/** ExtractOptions from the renderer's object: only the fields extract takes, each checked. @throws BrickpostError USAGE */
function extractOptions(o: Opts): ExtractOptions {
  const m = 'extract';
  const shipment = stringField(m, o, 'shipment', true);
  const drives = stringListField(m, o, 'drives');
  const x: ExtractOptions = { drive: stringField(m, o, 'drive'), paths: stringListField(m, o, 'paths'), to: stringField(m, o, 'to') };
  if (shipment !== undefined) x.shipment = shipment;
  if (drives.length > 0) x.drives = drives;
  for (const f of APPLY_FLAGS) if (boolField(m, o, f)) x[f] = true;
  return x;
}

/** RebuildDriveOptions from the renderer's object, each field checked. @throws BrickpostError USAGE */
function rebuildOptions(o: Opts): RebuildDriveOptions {
  const m = 'rebuildDrive';
  const shipment = stringField(m, o, 'shipment', true);
  const member = o['member'];
  if (member !== undefined && (typeof member !== 'number' || !Number.isInteger(member) || member < 1)) throw new BrickpostError('USAGE', `rebuildDrive: member is not a drive number`);
  const x: RebuildDriveOptions = { from: stringListField(m, o, 'from'), to: stringField(m, o, 'to') };
  if (typeof member === 'number') x.member = member;
  if (shipment !== undefined) x.shipment = shipment;
  return x;
}

function cancelled(jobId: string): BrickpostError {
  return new BrickpostError('CANCELLED', `job ${quote(jobId)} was cancelled`);
}
