/**
 * Payload and tag manifests, manifest-sha256.txt and tagmanifest-sha256.txt
 * (RFC 8493 §2.1.3, §2.2.1): one line per file, "<checksum> <path>". We
 * write lower-case hex, two spaces, and the encoded path, as sha256sum and
 * bagit.py do. Payload manifests list only files under data/; tag manifests
 * list only files outside it.
 */

import { BrickpostError, quote } from '../errors.js';
import { tagLines } from './lines.js';
import { checkBagPath, decodeBagPath, encodeBagPath, MAX_BAG_PATH_BYTES } from './path.js';

/** One manifest line: a file path (decoded) and its SHA-256 in lower-case hex. */
export interface ManifestEntry {
  path: string;
  digest: string;
}

/** How to read a manifest. */
export interface ManifestOptions {
  /** Most entries accepted; more is LIMIT_EXCEEDED. */
  maxEntries: number;
  /** True for a payload manifest (paths under data/), false for a tag manifest. */
  payload: boolean;
  /** File name for messages; defaults to manifest-sha256.txt or tagmanifest-sha256.txt. */
  name?: string;
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const LINE = /^([0-9a-fA-F]{64})[ \t]+([^ \t].*)$/s;

/**
 * The text of a SHA-256 manifest listing `entries` in the given order.
 * Throws UNSAFE_PATH for a path checkBagPath refuses, USAGE for a digest that
 * is not 64 hex digits or a path listed twice.
 */
export function formatManifest(entries: ReadonlyArray<ManifestEntry>): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const { path, digest } of entries) {
    if (!SHA256_HEX.test(digest)) throw new BrickpostError('USAGE', `manifest digest is not SHA-256 hex: ${quote(digest)}`);
    checkBagPath(path, 'manifest entry');
    if (seen.has(path)) throw new BrickpostError('USAGE', `manifest lists ${quote(path)} twice`);
    seen.add(path);
    out.push(`${digest.toLowerCase()}  ${encodeBagPath(path)}\n`);
  }
  return out.join('');
}

/**
 * Reads a SHA-256 manifest. Strict: every line is 64 hex digits (either
 * case), spaces or tabs, and a path; no blank or comment lines. Paths must be
 * correctly percent-encoded (else MALFORMED) and safe (else UNSAFE_PATH, see
 * checkBagPath); a payload manifest entry outside data/ is UNSAFE_PATH, a tag
 * manifest entry under data/ is MALFORMED. A path listed twice, or used both
 * as a file and as a directory, is MALFORMED; more than `maxEntries` entries
 * is LIMIT_EXCEEDED. Messages give the line number and the quoted path.
 */
export function parseManifest(input: string | Buffer, opts: ManifestOptions): ManifestEntry[] {
  const name = opts.name ?? (opts.payload ? 'manifest-sha256.txt' : 'tagmanifest-sha256.txt');
  const maxBytes = Math.min(2 ** 29, (opts.maxEntries + 1) * (MAX_BAG_PATH_BYTES * 3 + 80));
  const lines = tagLines(input, name, maxBytes);
  if (lines.length > opts.maxEntries) {
    throw new BrickpostError('LIMIT_EXCEEDED', `${name} has more than ${opts.maxEntries} entries`, { path: name });
  }
  const entries: ManifestEntry[] = [];
  const lineOf = new Map<string, number>();
  const dirs = new Set<string>();
  for (const [i, line] of lines.entries()) {
    const where = `${name} line ${i + 1}`;
    const m = LINE.exec(line);
    if (!m) throw new BrickpostError('MALFORMED', `${where}: not "<sha256> <path>": ${quote(line, 120)}`, { path: name });
    const path = decodeBagPath(m[2]!);
    if (path === undefined) {
      throw new BrickpostError('MALFORMED', `${where}: bad percent-encoding in path ${quote(m[2]!)}`, { path: name });
    }
    checkBagPath(path, where);
    const underData = path.startsWith('data/');
    if (opts.payload && !underData) {
      throw new BrickpostError('UNSAFE_PATH', `${where}: payload manifest entry outside data/: ${quote(path)}`, { path });
    }
    if (!opts.payload && (underData || path === 'data')) {
      throw new BrickpostError('MALFORMED', `${where}: tag manifest lists a payload file: ${quote(path)}`, { path });
    }
    const first = lineOf.get(path);
    if (first !== undefined) {
      throw new BrickpostError('MALFORMED', `${where}: ${quote(path)} is already listed on line ${first}`, { path });
    }
    if (dirs.has(path)) throw new BrickpostError('MALFORMED', `${where}: ${quote(path)} is also a directory of another entry`, { path });
    for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) {
      const dir = path.slice(0, at);
      if (lineOf.has(dir)) {
        throw new BrickpostError('MALFORMED', `${where}: ${quote(path)} is inside ${quote(dir)}, a file listed on line ${lineOf.get(dir)}`, { path });
      }
      dirs.add(dir);
    }
    lineOf.set(path, i + 1);
    entries.push({ path, digest: m[1]!.toLowerCase() });
  }
  return entries;
}
