/**
 * Whole-tree snapshots for the tests of what a shipment carries: every
 * entry under a folder by its name as bytes, with its type, permission bits,
 * mtime to the nanosecond, owner, size and content hash, link target,
 * device numbers, user.* extended attributes, blocks allocated (so holes
 * show), and the groups of names that are hard links of one file. Two
 * trees compare entry by entry, with a readable line per difference.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import * as posix from '@brickpost/posix';

export interface Entry {
  type: 'file' | 'dir' | 'link' | 'fifo' | 'socket' | 'char' | 'block';
  mode: number;
  mtimeNs: bigint;
  uid: number;
  gid: number;
  size?: number;
  sha256?: string;
  /** 512-byte blocks allocated: a sparse file allocates fewer than its size needs. */
  blocks?: number;
  target?: string;
  rdev?: number;
  xattrs?: string;
}

export interface Tree {
  /** By path, names as hex of their bytes joined with '/' (readable via `label`). */
  entries: Map<string, Entry>;
  /** Hard-link groups: sorted lists of paths of one file. */
  hardLinks: string[][];
}

export interface SnapshotOptions {
  /** Leave out a destination's state folder at the top. */
  skipState?: boolean;
  /** Compare folder mtimes (changing a folder's content changes its mtime; off by default). */
  dirTimes?: boolean;
  /** Paths (relative, '/'-separated, as text) to leave out with what is below them. */
  exclude?: string[];
}

/** A path of raw name bytes as text for messages: UTF-8 where it is, `\xNN` elsewhere. */
export function label(parts: Buffer[]): string {
  return parts
    .map((p) =>
      JSON.stringify(p.toString('latin1'))
        .slice(1, -1)
        .replace(/[\u0080-\u00ff]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`),
    )
    .join('/');
}

/** Snapshot of every entry below `root`. */
export function fullSnapshot(root: string, opts: SnapshotOptions = {}): Tree {
  const entries = new Map<string, Entry>();
  const inodes = new Map<string, string[]>();
  const walk = (dir: Buffer, parts: Buffer[]): void => {
    for (const name of readdirSync(dir, { encoding: 'buffer' }).sort((a, b) => Buffer.compare(a, b))) {
      if (parts.length === 0 && opts.skipState && name.toString() === '.brickpost') continue;
      const p = Buffer.concat([dir, Buffer.from('/'), name]);
      const path = [...parts, name];
      const key = label(path);
      if (opts.exclude?.includes(key)) continue;
      const st = lstatSync(p, { bigint: true });
      const type: Entry['type'] = st.isFile()
        ? 'file'
        : st.isDirectory()
          ? 'dir'
          : st.isSymbolicLink()
            ? 'link'
            : st.isFIFO()
              ? 'fifo'
              : st.isSocket()
                ? 'socket'
                : st.isCharacterDevice()
                  ? 'char'
                  : 'block';
      const e: Entry = { type, mode: Number(st.mode & 0o7777n), mtimeNs: st.mtimeNs, uid: Number(st.uid), gid: Number(st.gid) };
      if (type === 'dir' && !opts.dirTimes) e.mtimeNs = 0n;
      if (type === 'link') e.target = label([readlinkSync(p, { encoding: 'buffer' })]);
      else e.xattrs = xattrs(p);
      if (type === 'file') {
        e.size = Number(st.size);
        e.sha256 = createHash('sha256').update(readFileSync(p)).digest('hex');
        e.blocks = Number(st.blocks);
        if (st.nlink > 1n) {
          const k = `${st.dev}:${st.ino}`;
          inodes.set(k, [...(inodes.get(k) ?? []), key]);
        }
      }
      if (type === 'char' || type === 'block') e.rdev = Number(st.rdev);
      entries.set(key, e);
      if (type === 'dir') walk(p, path);
    }
  };
  walk(Buffer.from(root), []);
  const hardLinks = [...inodes.values()]
    .filter((g) => g.length > 1)
    .map((g) => g.sort())
    .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
  return { entries, hardLinks };
}

function xattrs(p: Buffer): string {
  try {
    return posix
      .listXattrs(p)
      .filter((n) => n.toString().startsWith('user.'))
      .sort((a, b) => Buffer.compare(a, b))
      .map((n) => `${n.toString()}=${posix.getXattr(p, n)?.toString('base64') ?? ''}`)
      .join(',');
  } catch {
    return '?';
  }
}

/** What differs between two snapshots, one line each (empty when equal), at most `limit`. */
export function diffTrees(a: Tree, b: Tree, opts: { ignore?: Array<keyof Entry>; limit?: number } = {}): string[] {
  const out: string[] = [];
  const limit = opts.limit ?? 30;
  const strip = (e: Entry): Entry => {
    const c = { ...e };
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- the fields a comparison ignores
    for (const k of opts.ignore ?? []) delete c[k];
    return c;
  };
  const show = (e: Entry): string => JSON.stringify(strip(e), (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  for (const [k, v] of a.entries) {
    const w = b.entries.get(k);
    if (!w) out.push(`missing: ${k}`);
    else if (show(v) !== show(w)) out.push(`differs: ${k}: ${show(v)} vs ${show(w)}`);
    if (out.length >= limit) return out;
  }
  for (const k of b.entries.keys()) if (!a.entries.has(k)) out.push(`extra: ${k}`);
  if (JSON.stringify(a.hardLinks) !== JSON.stringify(b.hardLinks)) out.push(`hard links: ${JSON.stringify(a.hardLinks)} vs ${JSON.stringify(b.hardLinks)}`);
  return out.slice(0, limit);
}
