/**
 * The method names of the desktop API, split by how they travel: quick
 * calls (one request, one answer) and long jobs (a job id, events, then one
 * answer). Every transport (Electron IPC, the loopback HTTP bridge, the
 * engine child process) dispatches on these lists and refuses any other name.
 * No Node imports.
 */
import type { DesktopApi } from './api.js';

/** Quick calls: `method(opts?)` → a promise of the answer. */
export const QUICK_METHODS = [
  'whoami',
  'keygen',
  'trustList',
  'trustAdd',
  'trustRemove',
  'drives',
  'chooseFolder',
  'listFolder',
  'sourceInfo',
  'plan',
  'shipmentFolder',
  'receipt',
  'history',
  'rollback',
  'resume',
  'report',
  'label',
  'custody',
] as const satisfies ReadonlyArray<keyof DesktopApi>;

/** Long jobs: `method(jobId, opts, onEvent)`; `cancel(jobId)` stops one. */
export const JOB_METHODS = ['pack', 'verify', 'ingest', 'extract'] as const satisfies ReadonlyArray<keyof DesktopApi>;

export type QuickMethod = (typeof QUICK_METHODS)[number];
export type JobMethod = (typeof JOB_METHODS)[number];

/** Every function of DesktopApi (the preload exposes exactly these). */
export const ALL_METHODS: ReadonlyArray<QuickMethod | JobMethod | 'cancel'> = [...QUICK_METHODS, ...JOB_METHODS, 'cancel'];

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

/** An API error as it crosses a process or network boundary (DesktopError without the Error). */
export interface WireError {
  name: 'BrickpostError';
  code: string;
  message: string;
  hint?: string;
  exitCode: number;
  path?: string;
}

// Compile-time check: every function of DesktopApi is in one of the lists.
type Unlisted = Exclude<keyof DesktopApi, QuickMethod | JobMethod | 'cancel' | 'host'>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
everyMethodListed;
