import { lstat, mkdir, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { BrickpostError, parseStrictJson, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { lockHolder, takeLock, type LockHolder } from '../io/lock.js';
import { makeFolders } from '../io/folders.js';
import { atomicTempPrefix, writeAtomic } from '../io/sync.js';
import { MARKER_NAME } from './marker.js';
import type { ApplyPolicy } from './policy.js';
import { removeTree } from '../io/remove-tree.js';

/**
 * A destination's state folder, DEST/.brickpost/ (FORMAT.md §destination):
 *
 *     state.json     the dataset held and the shipments applied, in order
 *     journal.sqlite the ops of the applied shipments (for rollback) and the
 *                    apply or rollback in progress (see dest-db.ts)
 *     lock           locked (by the kernel) by the brickpost working on DEST,
 *                    and naming it: pid, command, since when
 *     staging/ID/N   the file op N of shipment ID installs, before commit
 *     staging/ID/tree/PATH  the same for a file in a folder shipment ID
 *                    creates, at its path: the commit moves the folder in whole
 *     undo/ID/N      what op N of shipment ID retired, for rollback (a
 *                    regular file only until it is kept by chunks)
 *     undo-chunks/HH/HASH  the chunk undo store (undo-store.ts)
 *     requests/ID.bpsig  request files written when shipment ID was refused
 *     manifests/ID.age  the (encrypted) manifest of each applied shipment
 */
export const STATE_DIR = '.brickpost';

/** The staging tree inside a shipment's staging folder. */
export function stagingTreeOf(staging: string): string {
  return join(staging, 'tree');
}

export interface AppliedShipment {
  shipment: string;
  seq: number;
  /** The shipment's parent (null for the first of a dataset). */
  parent?: string | null;
  label: string;
  appliedAt: string;
  files: number;
  bytes: number;
  /** Bytes the apply read from the drive (chunks and deltas), as opposed to reused from DEST. */
  bytesFromDrive?: number;
}

export interface DestState {
  format: 'brickpost-dest/v1';
  publisher: string;
  datasetId: string;
  dataset: string;
  /** How many applied shipments keep their undo area (rollback reach); default 3. */
  keepUndo?: number;
  /** Every applied shipment keeps its undo data (`--keep-undo all`). */
  keepAll?: boolean;
  /** Shipments applied within this many days keep their undo data too. */
  keepDays?: number;
  /** Named points rollback must always reach (`brickpost pin`): undo data after them is kept. */
  pins?: Pin[];
  /** What the last ingest applied of recorded attributes (ingest's options); rollback applies the same. */
  policy?: ApplyPolicy;
  applied: AppliedShipment[];
}

/** A named consistency point: the tree DEST had after shipment `shipment`. */
export interface Pin {
  shipment: string;
  seq: number;
  name: string;
  at: string;
}

/** Paths inside one destination's state folder. */
export class DestFolder {
  readonly state: string;
  constructor(readonly dest: string) {
    this.state = join(dest, STATE_DIR);
  }
  get stateFile(): string {
    return join(this.state, 'state.json');
  }
  staging(id: string): string {
    return join(this.state, 'staging', id);
  }
  /** Where files in folders shipment `id` creates are staged, at their paths (StagingWriter.inTree). */
  stagingTree(id: string): string {
    return stagingTreeOf(this.staging(id));
  }
  undo(id: string): string {
    return join(this.state, 'undo', id);
  }
  get manifests(): string {
    return join(this.state, 'manifests');
  }
  manifest(id: string): string {
    return join(this.manifests, `${id}.age`);
  }

  /**
   * The kept manifest of an applied shipment, for a check of DEST against it
   * (`then`: what the user should do after the next ingest, e.g. "report").
   * @throws BrickpostError NOT_FOUND when it is not kept (an older ingest)
   */
  async keptManifest(id: string, then: string): Promise<string> {
    const file = this.manifest(id);
    if (!(await lstat(file).catch(() => null))?.isFile()) {
      throw new BrickpostError('NOT_FOUND', `the manifest of shipment ${quote(id)} is not kept in ${quote(this.dest)}`, {
        hint: `it was ingested by an older brickpost; ingest the next shipment, then ${then}`,
        path: file,
      });
    }
    return file;
  }

  /**
   * Creates the state folder, refusing one that is a symlink or not a folder.
   * @throws BrickpostError UNSAFE_ENTRY, PERMISSION, IO
   */
  async ensure(): Promise<void> {
    await makeFolders(this.state, 0o700).catch((e: unknown) => {
      throw toEnvironmentError(e, 'cannot create the state folder', { on: 'destination', then: 'run the same command again' });
    });
    await this.check();
  }

  /**
   * Refuses a state folder that is a symbolic link (or not a folder): its
   * journal, undo area and manifests are only ever used inside DEST.
   * @throws BrickpostError UNSAFE_ENTRY
   */
  async check(): Promise<void> {
    const st = await lstat(this.state).catch(() => null);
    if (st && !st.isDirectory()) {
      throw new BrickpostError(
        'UNSAFE_ENTRY',
        `${quote(this.state)} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: a destination's state folder must be a folder inside it`,
        {
          hint: 'move it away (if it was a link, its target holds the state) and retry',
          path: this.state,
        },
      );
    }
  }

  get lockFile(): string {
    return join(this.state, 'lock');
  }

  /**
   * Locks DEST for this process (running `command`, as others are told),
   * and removes what a killed one left of writing state.json (its
   * temporary file, never renamed into place).
   * @throws BrickpostError LOCKED (naming the holder), PERMISSION, IO
   */
  async lock(command: string): Promise<() => Promise<void>> {
    const release = await takeLock(this.lockFile, { what: `destination ${quote(this.dest)} is in use by`, command, inspect: `brickpost status ${this.dest}` });
    // What a writer killed between writing a temporary file and its rename left: the state file's, or the in-progress marker's.
    const leftOver = [atomicTempPrefix(basename(this.stateFile)), atomicTempPrefix(MARKER_NAME)];
    for (const n of await readdir(this.state).catch(() => [] as string[])) {
      if (leftOver.some((prefix) => n.startsWith(prefix))) await rm(join(this.state, n), { force: true });
    }
    // Chunks a killed compaction was writing (undo-store.ts): never named by the journal.
    await removeTree(join(this.state, 'undo-chunks', 'tmp'));
    return release;
  }

  /** The process working on DEST now, or null. @throws BrickpostError PERMISSION, IO */
  holder(): LockHolder | null {
    return lockHolder(this.lockFile);
  }

  async readState(): Promise<DestState | null> {
    return this.readJson<DestState>(this.stateFile);
  }

  async writeState(s: DestState): Promise<void> {
    await writeAtomic(this.stateFile, JSON.stringify(s, null, 1) + '\n', 0o600);
  }

  private async readJson<T>(file: string): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw toEnvironmentError(e, `cannot read the destination's state ${quote(file)}`, { on: 'destination', path: file });
    }
    return parseStrictJson(text, { where: file, maxDepth: 8 }) as T;
  }
}

/**
 * A brickpost destination named on the command line: the folder, its state
 * folder and its state.
 * @throws BrickpostError NOT_FOUND when `destPath` is not a folder or nothing was ingested into it.
 */
export async function openDest(
  destPath: string,
  hint = "give the folder you passed to 'brickpost ingest'",
): Promise<{ dest: string; folder: DestFolder; state: DestState }> {
  const dest = await realDest(destPath);
  if (!(await lstat(dest).catch(() => null))?.isDirectory())
    throw new BrickpostError('NOT_FOUND', `destination ${quote(destPath)} is not a folder`, { path: dest });
  const folder = new DestFolder(dest);
  await folder.check();
  const state = await folder.readState();
  if (!state || state.applied.length === 0) {
    throw new BrickpostError('NOT_FOUND', `${quote(destPath)} holds no brickpost state (nothing was ingested into it)`, { hint, path: dest });
  }
  return { dest, folder, state };
}

/**
 * The absolute path of DEST as named on the command line, with symbolic
 * links resolved once, here: DEST may be a link the user made to a folder
 * (or lie below one), and every later path is built on the real folder, so
 * the catalog and each command name it the same way. A path that does not
 * exist yet is returned as given (made absolute).
 * @throws BrickpostError PERMISSION, IO
 */
export async function realDest(destPath: string): Promise<string> {
  const dest = resolve(destPath);
  try {
    return await realpath(dest);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return dest;
    throw toEnvironmentError(e, 'cannot resolve the destination');
  }
}

/**
 * DEST as a real folder, created when absent; a symbolic link the user made
 * to a folder is resolved here, once (realDest), and a dangling one refused.
 * @throws BrickpostError UNSAFE_ENTRY, USAGE (not a folder), environment
 */
export async function prepareDest(destPath: string): Promise<string> {
  const dest = await realDest(destPath);
  const st = await lstat(dest).catch(() => null);
  if (!st) {
    await mkdir(dest, { recursive: false, mode: 0o755 }).catch((e: unknown) => {
      throw toEnvironmentError(e, 'cannot create the destination');
    });
  } else if (st.isSymbolicLink()) {
    throw new BrickpostError('UNSAFE_ENTRY', `destination ${quote(dest)} is a symbolic link to nothing`, {
      hint: 'give an existing folder, or a path where one can be created',
    });
  } else if (!st.isDirectory()) {
    throw new BrickpostError('USAGE', `destination ${quote(dest)} is not a folder`);
  }
  return dest;
}
