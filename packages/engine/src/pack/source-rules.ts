/**
 * What a pack leaves out of the source and refuses in it: the exclude
 * patterns of --exclude and --exclude-from, and the names --portable
 * refuses. Also how the attributes of source entries are counted.
 */
import { readFile } from 'node:fs/promises';
import { BrickpostError, componentProblem, displayName, quote, windowsNameProblem } from '@brickpost/manifest';
import type { PackEntryCounts, PackOptions } from '../api/index.js';
import { compileExcludes, parseExcludeFile, type Excluder, type SourceEntry } from '../scan/index.js';

/**
 * The exclude patterns of --exclude and --exclude-from, or undefined.
 * @throws BrickpostError USAGE (a pattern that cannot be read, an exclude file that cannot be read)
 */
export async function excluder(opts: PackOptions): Promise<Excluder | undefined> {
  const patterns = [...(opts.exclude ?? [])];
  for (const f of opts.excludeFrom ?? []) {
    let text: string;
    try {
      text = await readFile(f, 'utf8');
    } catch (e) {
      throw new BrickpostError('USAGE', `cannot read exclude file ${quote(f)}: ${(e as Error).message}`, { hint: 'give a file of patterns, one per line' });
    }
    patterns.push(...parseExcludeFile(text));
  }
  return patterns.length > 0 ? compileExcludes(patterns) : undefined;
}

/** Counts the attributes of one entry of the source (its kind is counted from the manifest). */
export function count(c: PackEntryCounts, e: SourceEntry): void {
  if (e.attrs.x) c.withXattrs++;
  if (e.attrs.acl) c.withAcls++;
}

/**
 * pack --portable: names some systems cannot hold (not UTF-8 or not NFC,
 * controls or a backslash, Windows' reserved names and characters) and
 * names that differ only in case or Unicode form, collected while packing
 * and refused before the shipment is sealed.
 */
export class Portability {
  private readonly problems: string[] = [];
  private count = 0;

  constructor(private readonly on: boolean) {}

  check(path: string): void {
    if (!this.on) return;
    const name = path.slice(path.lastIndexOf('/') + 1);
    const why = componentProblem(name) ?? windowsNameProblem(name);
    if (why) this.add(`${displayName(path)}: ${why}`);
  }

  /** @throws BrickpostError UNSAFE_PATH listing what is not portable */
  finish(collisions: ReadonlyArray<{ parent: string; names: string[] }>): void {
    if (!this.on) return;
    for (const c of collisions)
      this.add(`${c.names.map((n) => quote(displayName(c.parent ? `${c.parent}/${n}` : n))).join(' and ')} differ only in case or Unicode form`);
    if (this.count === 0) return;
    throw new BrickpostError(
      'UNSAFE_PATH',
      `pack --portable: ${this.count} ${this.count === 1 ? 'name is' : 'names are'} not portable: ${this.problems.slice(0, 20).join('; ')}${this.count > 20 ? '; …' : ''}`,
      {
        hint: 'rename them (or exclude them with --exclude), or pack without --portable: then only destinations that cannot hold them refuse the shipment',
      },
    );
  }

  private add(problem: string): void {
    this.count++;
    if (this.problems.length < 20) this.problems.push(problem);
  }
}
