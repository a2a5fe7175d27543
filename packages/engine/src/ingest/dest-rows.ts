// The rows of a destination's journal (dest-db.ts) as its methods take and give them.
import type { ApplyPolicy } from './policy.js';

/** The apply or rollback in progress, as the `journal` table holds it. */
export interface JournalRow {
  shipment: string;
  kind: 'apply' | 'rollback';
  /** apply: retire, install, links, dirs; rollback: unstage, restore, dirs. */
  phase: string;
  /** JSON: the DestState to write when done. */
  state: string;
  /** What the commit applies of the recorded attributes (the options of the ingest that planned it). */
  policy: ApplyPolicy;
}

/** What an op does: retire, mkdir, install and meta, then (links phase) hardlink, symlink, special and lmeta. */
export type OpKind = 'retire' | 'mkdir' | 'install' | 'meta' | 'hardlink' | 'symlink' | 'special' | 'lmeta';
/**
 * The target of an install op whose file is staged at its path in the
 * staging tree (a file in a folder the shipment creates), not flat as N:
 * the commit moves it in with its folder.
 */
export const STAGED_IN_TREE = 'tree';

/** An op as the planner records it; paths in their stored form (dbPath). */
export interface OpInsert {
  shipment: string;
  n: number;
  kind: OpKind;
  path: string;
  mode: number | null;
  mtime: string | null;
  oldMode: number | null;
  oldMtime: string | null;
  /** A link's target, a special file's kind and numbers; STAGED_IN_TREE or null for an install. */
  target: string | null;
  attrs: string | null;
  oldAttrs: string | null;
}

/** An op as the journal holds it. */
export interface OpRow {
  n: number;
  kind: OpKind;
  path: string;
  mode: number | null;
  mtime: string | null;
  old_mode: number | null;
  old_mtime: string | null;
  target: string | null;
  attrs: string | null;
  old_attrs: string | null;
}

/** Which ops to read: those of one commit phase, or all of a shipment newest first (to undo them). */
export type OpSelection = 'retire' | 'install' | 'links' | 'undo';
/** A file of DEST's current tree as the scratch table `old` holds it. */
export interface OldRow {
  size: number;
  mode: number;
  mtime: string;
  /** Always written (loadOldTree). */
  digest: Buffer;
  ok: number;
  attrs: string | null;
}
