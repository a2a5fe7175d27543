/**
 * File access inside a bag for the recovery reader and repairer: the
 * payload manifest, reads that report bad sectors instead of failing, and
 * opening a protected file without ever following a symbolic link (every
 * folder on the way is checked with lstat, the file is opened O_NOFOLLOW).
 */
import { createHash } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { bagit, BrickpostError, quote } from '@brickpost/manifest';
import { readLimited } from '../io/read-limited.js';
import { toEnvironmentError } from '../io/errors.js';

/** Largest manifest-sha256.txt read (FORMAT.md §4.4). */
const MAX_MANIFEST_BYTES = 64 << 20;
/** Most payload manifest entries accepted. */
const MAX_MANIFEST_ENTRIES = 1_000_000;
const NOFOLLOW = fsc.O_NOFOLLOW ?? 0;

/**
 * The bag's payload manifest: bag path → SHA-256 (lower-case hex).
 * @throws BrickpostError FILE_MISSING, MALFORMED, UNSAFE_PATH, LIMIT_EXCEEDED, IO
 */
export async function payloadManifest(bagDir: string): Promise<Map<string, string>> {
  const text = await readLimited(join(bagDir, 'manifest-sha256.txt'), MAX_MANIFEST_BYTES, 'payload manifest');
  const entries = bagit.parseManifest(text, { maxEntries: MAX_MANIFEST_ENTRIES, payload: true });
  return new Map(entries.map((e) => [e.path, e.digest]));
}

/** Told of a read that failed (the system error), where a caller must tell a failing drive from damage. */
export type OnReadError = (e: unknown) => void;

/**
 * Reads up to buf.length bytes at `pos`. Returns the bytes read (fewer only
 * at the end of the file), or -1 when the read fails: a bad sector is
 * damage to report, not a reason to stop (`onError` hears of it).
 */
export async function readAt(fh: FileHandle, buf: Uint8Array, pos: number, onError?: OnReadError): Promise<number> {
  let done = 0;
  try {
    while (done < buf.length) {
      const { bytesRead } = await fh.read(buf, done, buf.length - done, pos + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
  } catch (e) {
    onError?.(e);
    return -1;
  }
  return done;
}

/** What is at a bag path: a regular file of some size, nothing, or something brickpost will not touch. */
export type Entry = { kind: 'file'; size: number } | { kind: 'missing' } | { kind: 'unsafe'; why: string };

/**
 * Looks at a bag path without following links: every folder on the way
 * must be a real folder and the path itself a regular file.
 * @throws BrickpostError PERMISSION, IO
 */
export async function probe(bagDir: string, rel: string): Promise<Entry> {
  const parts = rel.split('/');
  let at = bagDir;
  for (const [i, part] of parts.entries()) {
    at = join(at, part);
    let st;
    try {
      st = await lstat(at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
      throw toEnvironmentError(e, `cannot look at ${rel}`);
    }
    const leaf = i === parts.length - 1;
    if (st.isSymbolicLink()) return { kind: 'unsafe', why: `${quote(parts.slice(0, i + 1).join('/'))} is a symbolic link` };
    if (leaf ? !st.isFile() : !st.isDirectory())
      return { kind: 'unsafe', why: `${quote(parts.slice(0, i + 1).join('/'))} is not a ${leaf ? 'regular file' : 'folder'}` };
    if (leaf) return { kind: 'file', size: st.size };
  }
  return { kind: 'missing' };
}

/**
 * Opens a protected file for reading, or for reading and writing in place,
 * without following links.
 * @throws BrickpostError UNSAFE_ENTRY (a link or special file on the way), FILE_MISSING, PERMISSION, IO
 */
export async function openInBag(bagDir: string, rel: string, write: boolean): Promise<FileHandle> {
  const e = await probe(bagDir, rel);
  if (e.kind === 'unsafe') throw new BrickpostError('UNSAFE_ENTRY', `${quote(rel)}: ${e.why}`, { path: rel });
  if (e.kind === 'missing') throw new BrickpostError('FILE_MISSING', `${quote(rel)} is missing`, { path: rel });
  try {
    return await open(join(bagDir, rel), (write ? fsc.O_RDWR : fsc.O_RDONLY) | NOFOLLOW);
  } catch (err) {
    throw toEnvironmentError(err, `cannot open ${rel}`);
  }
}

/**
 * Creates a missing protected file (and its missing folders), never through
 * a link, and opens it for writing. Returns the handle and the folders whose
 * entries changed, to fsync.
 * @throws BrickpostError UNSAFE_ENTRY, NO_SPACE, PERMISSION, IO
 */
export async function createInBag(bagDir: string, rel: string): Promise<{ fh: FileHandle; dirs: string[] }> {
  const parts = rel.split('/');
  const dirs: string[] = [];
  let at = bagDir;
  for (const part of parts.slice(0, -1)) {
    const parent = at;
    at = join(at, part);
    try {
      await mkdir(at);
      dirs.push(parent);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw toEnvironmentError(e, `cannot create the folder of ${rel}`);
    }
    const st = await lstat(at);
    if (!st.isDirectory()) throw new BrickpostError('UNSAFE_ENTRY', `${quote(rel)}: ${quote(part)} is not a folder`, { path: rel });
  }
  try {
    const fh = await open(join(bagDir, rel), fsc.O_RDWR | fsc.O_CREAT | fsc.O_EXCL | NOFOLLOW, 0o644);
    return { fh, dirs: [...dirs, at] };
  } catch (e) {
    throw toEnvironmentError(e, `cannot create ${rel}`);
  }
}

/**
 * SHA-256 (hex) of an open file's content, or undefined when it cannot be
 * read to the end (`onError` hears why), or is longer than `max` (what
 * signed data allows it: it cannot match its signed digest, and is not read).
 */
export async function sha256Of(fh: FileHandle, max = Infinity, onError?: OnReadError): Promise<string | undefined> {
  if ((await fh.stat()).size > max) return undefined;
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  for (let pos = 0; ;) {
    const n = await readAt(fh, buf, pos, onError);
    if (n < 0) return undefined;
    hash.update(buf.subarray(0, n));
    pos += n;
    // A file that grows while it is read is not read past its bound either.
    if (pos > max) return undefined;
    if (n < buf.length) return hash.digest('hex');
  }
}

/**
 * A few open handles of protected files, the least recently used closed
 * first: a window's segments alternate between the files packed together.
 */
export class Handles {
  private readonly held = new Map<string, FileHandle>();

  constructor(
    private readonly opener: (rel: string) => Promise<FileHandle>,
    private readonly max = 8,
  ) {}

  /** The open handle of `rel`. Throws what the opener throws. */
  async get(rel: string): Promise<FileHandle> {
    let fh = this.held.get(rel);
    if (fh) {
      this.held.delete(rel);
    } else {
      if (this.held.size >= this.max) await this.drop(this.held.keys().next().value!);
      fh = await this.opener(rel);
    }
    this.held.set(rel, fh);
    return fh;
  }

  /** Closes every handle. */
  async closeAll(): Promise<void> {
    for (const rel of [...this.held.keys()]) await this.drop(rel);
  }

  private async drop(rel: string): Promise<void> {
    const fh = this.held.get(rel)!;
    this.held.delete(rel);
    await fh.close().catch(() => undefined);
  }
}
