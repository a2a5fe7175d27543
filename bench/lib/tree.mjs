/**
 * File trees as the benchmarks and the demo see them.
 *
 * A tree is the set of entries under a root, keyed by relative path with `/`
 * separators. An entry is a file (size, mtime in ms, executable bit), a
 * directory, a symbolic link (its target) or another special file (its kind:
 * a real tree given with --source holds them). `compareTrees` says how a copy differs from its original, byte
 * for byte; `treeBytes` is what a tool's output costs on the drive.
 */
import { open, lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Walks ROOT and returns Map(relPath -> entry). Names in `exclude` are
 * skipped at the top level only (for a tool's state folder).
 */
export async function walkTree(root, { exclude = [] } = {}) {
  const entries = new Map();
  const stack = [''];
  while (stack.length) {
    const rel = stack.pop();
    const dirents = await readdir(join(root, rel), { withFileTypes: true });
    for (const d of dirents) {
      if (rel === '' && exclude.includes(d.name)) continue;
      const path = rel ? `${rel}/${d.name}` : d.name;
      const st = await lstat(join(root, path), { bigint: true });
      if (st.isDirectory()) {
        entries.set(path, { type: 'dir' });
        stack.push(path);
      } else if (st.isFile()) {
        entries.set(path, {
          type: 'file',
          size: Number(st.size),
          mtimeMs: Number(st.mtimeNs / 1_000_000n),
          exec: (Number(st.mode) & 0o111) !== 0,
        });
      } else if (st.isSymbolicLink()) {
        entries.set(path, { type: 'link', target: await readlink(join(root, path)) });
      } else {
        const kind = st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : st.isCharacterDevice() ? 'char' : 'block';
        entries.set(path, { type: kind });
      }
    }
  }
  return entries;
}

/** Sum of file sizes (apparent bytes) and file count under ROOT. */
export async function treeBytes(root, opts) {
  let bytes = 0;
  let files = 0;
  for (const e of (await walkTree(root, opts)).values()) {
    if (e.type === 'file') {
      bytes += e.size;
      files += 1;
    }
  }
  return { bytes, files };
}

const BLOCK = 4 << 20;

async function sameContent(a, b, size) {
  const fa = await open(a, 'r');
  const fb = await open(b, 'r');
  try {
    const ba = Buffer.allocUnsafe(BLOCK);
    const bb = Buffer.allocUnsafe(BLOCK);
    for (let pos = 0; pos < size; pos += BLOCK) {
      const n = Math.min(BLOCK, size - pos);
      const [ra, rb] = await Promise.all([fa.read(ba, 0, n, pos), fb.read(bb, 0, n, pos)]);
      if (ra.bytesRead !== n || rb.bytesRead !== n) return false;
      if (!ba.subarray(0, n).equals(bb.subarray(0, n))) return false;
    }
    return true;
  } finally {
    await fa.close();
    await fb.close();
  }
}

/**
 * Compares COPY against ORIGINAL: same relative paths and entry types, and
 * for files the same size, mtime to the millisecond, executable bit and
 * bytes. Returns a list of human-readable differences (empty when equal),
 * at most `limit` long. `exclude` applies to the copy's top level.
 */
export async function compareTrees(original, copy, { exclude = [], content = true, limit = 20 } = {}) {
  const a = await walkTree(original);
  const b = await walkTree(copy, { exclude });
  const diffs = [];
  const add = (msg) => diffs.length < limit && diffs.push(msg);
  for (const [path, ea] of a) {
    const eb = b.get(path);
    if (!eb) {
      add(`missing: ${path}`);
      continue;
    }
    if (ea.type !== eb.type) {
      add(`type differs: ${path} (${ea.type} vs ${eb.type})`);
      continue;
    }
    if (ea.type === 'link' && ea.target !== eb.target) add(`link target differs: ${path} (${ea.target} vs ${eb.target})`);
    if (ea.type !== 'file') continue;
    if (ea.size !== eb.size) {
      add(`size differs: ${path} (${ea.size} vs ${eb.size})`);
      continue;
    }
    if (ea.mtimeMs !== eb.mtimeMs) add(`mtime differs: ${path} (${ea.mtimeMs} vs ${eb.mtimeMs} ms)`);
    if (ea.exec !== eb.exec) add(`executable bit differs: ${path}`);
    if (content && !(await sameContent(join(original, path), join(copy, path), ea.size))) {
      add(`content differs: ${path}`);
    }
  }
  for (const path of b.keys()) if (!a.has(path)) add(`unexpected: ${path}`);
  let files = 0;
  let dirs = 0;
  let bytes = 0;
  for (const e of a.values()) {
    if (e.type === 'file') {
      files += 1;
      bytes += e.size;
    } else if (e.type === 'dir') dirs += 1;
  }
  return { equal: diffs.length === 0, diffs, files, dirs, bytes };
}
