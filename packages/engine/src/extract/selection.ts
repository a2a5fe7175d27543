import { BrickpostError, displayName, quote } from '@brickpost/manifest';

/**
 * The entries a person names to take off a drive: paths relative to the
 * shipment's root (`docs/report.pdf`, `src/`), each selecting that entry
 * and, for a folder, everything below it. A byte of a name that is not
 * UTF-8 is written `\xNN`, as `brickpost ls` prints it. No path (or `.`)
 * selects the whole shipment.
 */
export class Selection {
  private readonly paths: string[];
  private readonly seen = new Set<string>();
  readonly all: boolean;

  /** @throws BrickpostError USAGE for an absolute path or one with `..` */
  constructor(given: readonly string[]) {
    const paths = given.map(normalize).filter((p) => p !== '');
    this.all = given.length === 0 || paths.length < given.length;
    this.paths = [...new Set(paths)];
  }

  /** Whether the entry at `p` is to be taken (it or a folder above it was named). */
  selects(p: string): boolean {
    if (this.all) return true;
    for (const s of this.paths) {
      if (p === s || p.startsWith(`${s}/`)) {
        this.seen.add(s);
        return true;
      }
    }
    return false;
  }

  /** Whether `p` is a folder above a named entry (created to hold it). */
  leadsTo(p: string): boolean {
    return !this.all && this.paths.some((s) => s.startsWith(`${p}/`));
  }

  /**
   * After a pass over every entry: refuses a named path the shipment does not hold.
   * @throws BrickpostError NOT_FOUND
   */
  checkAllFound(): void {
    const missing = this.paths.filter((p) => !this.seen.has(p));
    if (missing.length > 0) {
      throw new BrickpostError('NOT_FOUND', `the shipment holds no ${missing.map((p) => quote(displayName(p))).join(', ')}`, {
        hint: "'brickpost ls DRIVE' lists what it holds",
      });
    }
  }
}

function normalize(p: string): string {
  if (p.startsWith('/')) throw new BrickpostError('USAGE', `${quote(p)}: give paths relative to the shipment's root, as 'brickpost ls' prints them`);
  const bytes = p.replace(/\\x([89a-fA-F][0-9a-fA-F])/g, (_, h: string) => String.fromCharCode(0xdc00 + parseInt(h, 16)));
  const parts = bytes.split('/').filter((c) => c !== '' && c !== '.');
  if (parts.includes('..')) throw new BrickpostError('USAGE', `${quote(p)}: a path with '..' names nothing in a shipment`);
  return parts.join('/');
}

/** A count of paths and the first few of them: what an error names, in memory that does not grow with the shipment. */
export class PathSample {
  count = 0;
  readonly first: string[] = [];
  private last: string | null = null;
  /** Counts P once however many times in a row it comes (a file's refs span several records). */
  add(p: string): void {
    if (p === this.last) return;
    this.last = p;
    if (this.count++ < 5) this.first.push(p);
  }
  /** The first five, quoted and joined, with ", …" when there are more. */
  named(): string {
    return `${this.first.map((p) => quote(displayName(p))).join(', ')}${this.count > 5 ? ', …' : ''}`;
  }
}

/** The files taken that reuse data an incremental shipment does not carry (delta or held refs): BASIS_MISSING naming the first five; nothing was written. */
export function baseMissing(paths: PathSample): BrickpostError {
  return new BrickpostError(
    'BASIS_MISSING',
    `${paths.count} of the files to extract reuse data this incremental shipment does not carry (it applies on top of an earlier one): ${paths.named()}; nothing was written`,
    { hint: 'take them from the destination that ingested it, or from a self-contained shipment (the publisher packs one with --full)' },
  );
}
