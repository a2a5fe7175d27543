/**
 * The method names of the desktop API, split by how they travel: quick
 * calls (one request, one answer) and long jobs (a job id, events, then one
 * answer). Every transport (Electron IPC, the loopback HTTP bridge, the
 * engine child process) dispatches on these lists and refuses any other name.
 * No Node imports.
 */
import type { ErrorEvent } from '@brickpost/engine/api';
import type { DesktopApi } from './api.js';

/**
 * How a method's arguments travel: `none` (no argument), `opts` (one plain
 * object), `job` (a job id, an object, and a listener of its events; then
 * one answer), `jobId` (a running job's id).
 */
export type CallShape = 'none' | 'opts' | 'job' | 'jobId';

/**
 * The one table of the desktop API's methods and how each is called. The
 * preload (which asks the main process for it: a sandboxed preload can
 * require nothing but 'electron'), the browser bridge, the IPC handlers and
 * the host's tables of handlers are all made from it; the compiler checks
 * it against DesktopApi below.
 */
export const METHODS = {
  whoami: 'none',
  keygen: 'opts',
  trustList: 'none',
  trustAdd: 'opts',
  trustRemove: 'opts',
  drives: 'none',
  chooseFolder: 'opts',
  listFolder: 'opts',
  sourceInfo: 'opts',
  plan: 'opts',
  shipmentFolder: 'opts',
  pack: 'job',
  verify: 'job',
  ingest: 'job',
  extract: 'job',
  rebuildDrive: 'job',
  cancel: 'jobId',
  receipt: 'opts',
  history: 'opts',
  rollback: 'opts',
  pin: 'opts',
  unpin: 'opts',
  resume: 'opts',
  report: 'opts',
  label: 'opts',
  custody: 'opts',
  subscribers: 'opts',
} as const satisfies Record<Exclude<keyof DesktopApi, 'host'>, CallShape>;

/** Every function of DesktopApi. */
export type Method = keyof typeof METHODS;
/** Quick calls: `method(opts?)` → a promise of the answer. */
export type QuickMethod = { [M in Method]: (typeof METHODS)[M] extends 'none' | 'opts' ? M : never }[Method];
/** Long jobs: `method(jobId, opts, onEvent)`; `cancel(jobId)` stops one. */
export type JobMethod = { [M in Method]: (typeof METHODS)[M] extends 'job' ? M : never }[Method];

const names = Object.keys(METHODS) as Method[];

/** The quick methods, in table order. */
export const QUICK_METHODS: readonly QuickMethod[] = names.filter((m): m is QuickMethod => METHODS[m] === 'none' || METHODS[m] === 'opts');

/** The job methods, in table order. */
export const JOB_METHODS: readonly JobMethod[] = names.filter((m): m is JobMethod => METHODS[m] === 'job');

/** Every function of DesktopApi (the preload exposes exactly these). */
export const ALL_METHODS: readonly Method[] = names;

/** True when `name` is a quick method. */
export function isQuickMethod(name: unknown): name is QuickMethod {
  return typeof name === 'string' && (QUICK_METHODS as readonly string[]).includes(name);
}

/** True when `name` is a job method. */
export function isJobMethod(name: unknown): name is JobMethod {
  return typeof name === 'string' && (JOB_METHODS as readonly string[]).includes(name);
}

/** A job id chosen by the renderer: short, printable, safe in a URL path. */
export const JOB_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * An API error as it crosses a process or network boundary (DesktopError
 * without the Error): the engine's ErrorEvent, named instead of typed.
 */
export interface WireError extends Omit<ErrorEvent, 'type'> {
  name: 'BrickpostError';
}

// Compile-time check: each method's shape in METHODS is how DesktopApi declares it.
type ShapeOf<F> = F extends (...args: infer A) => unknown
  ? A extends []
    ? 'none'
    : A extends [string, unknown, (event: never) => void]
      ? 'job'
      : A extends [string]
        ? 'jobId'
        : A extends [unknown]
          ? 'opts'
          : never
  : never;
type Misdeclared = { [M in Method]: (typeof METHODS)[M] extends ShapeOf<DesktopApi[M]> ? never : M }[Method];
const everyShapeRight: [Misdeclared] extends [never] ? true : Misdeclared = true;
everyShapeRight;
