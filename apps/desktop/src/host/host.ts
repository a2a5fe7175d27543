/**
 * The desktop host: the DesktopApi carried out over one Engine (one home).
 * Quick calls answer at once; long jobs are kept by the id the renderer
 * chose, with an AbortController each, so `cancel(jobId)` stops one. Every
 * transport (IPC relay, HTTP server, engine child process) drives a HostPort.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Engine } from '@brickpost/engine';
import { BrickpostError, isBrickpostError, parseMaxLag, quote, type ExtractOptions, type RebuildDriveOptions } from '@brickpost/engine/api';
import { renderReportHtml } from '@brickpost/engine/report-html';
import type { DesktopApi, JobListener } from '../shared/api.js';
import { isJobMethod, isQuickMethod, type JobMethod, type Method, type QuickMethod } from '../shared/methods.js';
import { boolField, jobIdArg, objectArg, s3Field, stringField, stringListField, type Opts } from './args.js';
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
    // Each handler is typed by the method's answer in DesktopApi.
    const handler = QUICK[method] as (e: Engine, args: unknown[]) => unknown;
    return handler(this.engine, args);
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
    const signal = controller.signal;
    const run = JOBS[method] as (e: Engine, opts: Opts, sink: JobListener, signal: AbortSignal) => Promise<unknown>;
    const done = run(this.engine, opts, sink, signal);
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
}

/** A method's answer, as DesktopApi declares it. */
type Answer<M extends Method> = Awaited<ReturnType<DesktopApi[M]>>;

/** The quick methods of the table in shared/methods.ts, each carried out over an Engine. */
const QUICK: { [M in QuickMethod]: (e: Engine, args: unknown[]) => Answer<M> | Promise<Answer<M>> } = {
  whoami: (e) => {
    try {
      return e.whoami();
    } catch (err) {
      if (isBrickpostError(err, 'NO_IDENTITY')) return null;
      throw err;
    }
  },
  keygen: (e, args) => e.keygen({ name: stringField('keygen', objectArg('keygen', args), 'name') }),
  trustList: (e) => e.trustList(),
  trustAdd: (e, args) => {
    const m = 'trustAdd';
    const o = objectArg(m, args);
    return e.trustAdd(stringField(m, o, 'key'), stringField(m, o, 'name', true), stringField(m, o, 'recipient', true));
  },
  trustRemove: (e, args) => e.trustRemove(stringField('trustRemove', objectArg('trustRemove', args), 'nameOrKeyId')),
  drives: () => detectDrives(),
  // Only Electron has a native dialog; its main process answers this itself.
  chooseFolder: () => null,
  listFolder: (_e, args) => listFolder(stringField('listFolder', objectArg('listFolder', args, 0, true), 'path', true)),
  sourceInfo: (_e, args) => sourceInfo(stringField('sourceInfo', objectArg('sourceInfo', args), 'path')),
  plan: (e, args) => e.plan(objectArg('plan', args) as never),
  shipmentFolder: (e, args) => {
    const m = 'shipmentFolder';
    const o = objectArg(m, args);
    const shipment = stringField(m, o, 'shipment', true);
    const folder = o.folder === '' ? '' : stringField(m, o, 'folder');
    return shipmentFolder(e, { drive: stringField(m, o, 'drive'), folder, ...(shipment !== undefined ? { shipment } : {}) });
  },
  receipt: (e, args) => receipt(e, objectArg('receipt', args)),
  history: (e, args) => {
    const o = objectArg('history', args);
    return e.history(stringField('history', o, 'dest'), s3Field('history', o));
  },
  rollback: (e, args) => {
    const o = objectArg('rollback', args);
    const s3 = s3Field('rollback', o);
    return e.rollback({ dest: stringField('rollback', o, 'dest'), to: stringField('rollback', o, 'to'), ...(s3 !== undefined ? { s3 } : {}) }, () => undefined);
  },
  pin: (e, args) => {
    const o = objectArg('pin', args);
    return e.pin({ dest: stringField('pin', o, 'dest'), shipment: stringField('pin', o, 'shipment'), name: stringField('pin', o, 'name') });
  },
  unpin: (e, args) => {
    const o = objectArg('unpin', args);
    return e.unpin({ dest: stringField('unpin', o, 'dest'), pin: stringField('unpin', o, 'pin') });
  },
  resume: (e, args) => {
    const o = objectArg('resume', args);
    return e.resume(stringField('resume', o, 'dest'), () => undefined, s3Field('resume', o));
  },
  report: async (e, args) => {
    const m = 'report';
    const o = objectArg(m, args);
    const shipment = stringField(m, o, 'shipment', true);
    const report = await e.report({ target: stringField(m, o, 'target'), deep: boolField(m, o, 'deep'), ...(shipment !== undefined ? { shipment } : {}) });
    return { report, html: renderReportHtml(report) };
  },
  label: (e, args) => {
    const o = objectArg('label', args);
    const shipment = stringField('label', o, 'shipment', true);
    return e.label({ drive: stringField('label', o, 'drive'), ...(shipment !== undefined ? { shipment } : {}) });
  },
  subscribers: (e, args) => {
    const m = 'subscribers';
    const o = objectArg(m, args, 0, true);
    const maxLag = stringListField(m, o, 'maxLag');
    const now = stringField(m, o, 'now', true);
    const dataset = stringField(m, o, 'dataset', true);
    return e.subscribers({ maxLag: parseMaxLag(maxLag), ...(now !== undefined ? { now } : {}), ...(dataset !== undefined ? { dataset } : {}) });
  },
  custody: (e, args) => {
    const o = objectArg('custody', args);
    const shipment = stringField('custody', o, 'shipment', true);
    return e.custody({ drive: stringField('custody', o, 'drive'), ...(shipment !== undefined ? { shipment } : {}) });
  },
};

/** The job methods of the table, each run over an Engine with an event sink and an abort signal. */
const JOBS: { [M in JobMethod]: (e: Engine, opts: Opts, sink: JobListener, signal: AbortSignal) => Promise<Answer<M>> } = {
  pack: (e, o, sink, signal) => e.pack(withS3('pack', o) as never, sink, signal),
  verify: (e, o, sink, signal) => e.verify(o as never, sink, signal),
  ingest: (e, o, sink, signal) => e.ingest(withS3('ingest', o) as never, sink, signal),
  extract: (e, o, sink, signal) => e.extract(extractOptions(o), sink, signal),
  rebuildDrive: (e, o, sink, signal) => e.rebuildDrive(rebuildOptions(o), sink, signal),
};

/** Writes the receipt (default: HOME/receipts/DEST-NAME-TIME.json) and returns it with the file's text. */
async function receipt(engine: Engine, o: Opts): Promise<Answer<'receipt'>> {
  const dest = resolve(stringField('receipt', o, 'dest'));
  let out = stringField('receipt', o, 'out', true);
  if (out === undefined) {
    const dir = join(engine.home, 'receipts');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    out = join(dir, `${basename(dest).replace(/[^\p{L}\p{N}._-]/gu, '_') || 'dest'}-${stamp}.json`);
  }
  const summary = await engine.receipt({ dest, out: resolve(out), deep: boolField('receipt', o, 'deep') });
  return { ...summary, text: await readFile(summary.out, 'utf8') };
}

/** The options with their `s3` field checked (a bucket source or destination's endpoint and profile). @throws BrickpostError USAGE */
function withS3(method: string, o: Opts): Opts {
  const s3 = s3Field(method, o);
  const rest = { ...o };
  delete rest['s3'];
  return s3 !== undefined ? { ...rest, s3 } : rest;
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
  if (member !== undefined && (typeof member !== 'number' || !Number.isInteger(member) || member < 1))
    throw new BrickpostError('USAGE', `rebuildDrive: member is not a drive number`);
  const x: RebuildDriveOptions = { from: stringListField(m, o, 'from'), to: stringField(m, o, 'to') };
  if (typeof member === 'number') x.member = member;
  if (shipment !== undefined) x.shipment = shipment;
  return x;
}

function cancelled(jobId: string): BrickpostError {
  return new BrickpostError('CANCELLED', `job ${quote(jobId)} was cancelled`);
}
