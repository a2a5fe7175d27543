/**
 * Benchmark datasets, made by the repository's generator
 * bench/make_dataset.py (deterministic: the same size and seed give the same
 * bytes, names and times on any machine). A cached dataset is a tree
 * `<cache>/ds-<SIZE>` plus `<cache>/ds-<SIZE>.json`, the generator's summary,
 * written last; the tree is reused while it still matches that summary.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { treeBytes } from './tree.mjs';

/** Path of the repository's dataset generator, bench/make_dataset.py. */
export function findMakeDataset(repoRoot) {
  return join(repoRoot, 'bench', 'make_dataset.py');
}

/**
 * Runs make_dataset.py into TARGET (absent or empty): SIZE bytes of the
 * mixed dataset, or FILES small files; returns its JSON summary. Throws when python3 fails or prints no summary.
 */
export async function generateDataset(script, target, { size, files, seed = 1, quiet = true } = {}) {
  const args = [script, target, ...(files ? ['--files', String(files)] : ['--size', size]), '--seed', String(seed)];
  if (quiet) args.push('-q');
  const child = spawn('python3', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (s) => (out += s));
  const code = await new Promise((res, rej) => {
    child.on('error', (e) => rej(new Error(`cannot run python3 for the dataset generator: ${e.message}`)));
    child.on('close', res);
  });
  if (code !== 0) throw new Error(`make_dataset.py exited with ${code} while writing ${target}`);
  try {
    return JSON.parse(out);
  } catch {
    throw new Error(`make_dataset.py printed no JSON summary for ${target}`);
  }
}

/**
 * Returns {dir, summary, reused} for a dataset of SIZE and SEED under
 * CACHE_DIR, generating it unless a matching one is there already.
 */
export async function ensureDataset({ repoRoot, cacheDir, size, seed = 1, log = () => {} }) {
  const dir = join(cacheDir, `ds-${size}`);
  const summaryFile = `${dir}.json`;
  if (existsSync(summaryFile) && existsSync(dir)) {
    const summary = JSON.parse(await readFile(summaryFile, 'utf8'));
    if (summary.seed === seed && summary.size === size) {
      const now = await treeBytes(dir);
      if (now.files === summary.files && now.bytes === summary.bytes) return { dir, summary, reused: true };
    }
    log(`cached dataset ${dir} does not match its summary; generating it again`);
  }
  const script = findMakeDataset(repoRoot);
  const partial = `${dir}.partial`;
  await rm(summaryFile, { force: true });
  await rm(dir, { recursive: true, force: true });
  await rm(partial, { recursive: true, force: true });
  log(`generating dataset --size ${size} --seed ${seed} into ${dir} ...`);
  const summary = await generateDataset(script, partial, { size, seed });
  await rename(partial, dir);
  const record = { ...summary, target: dir, size, seed };
  await writeFile(summaryFile, JSON.stringify(record, null, 2) + '\n');
  return { dir, summary: record, reused: false };
}
