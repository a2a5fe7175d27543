import { BrickpostError, MANIFEST_PATH, quote, type ChunkRef } from '@brickpost/manifest';
import type { ExpansionLimit, OpenedShipment } from '../drive/open.js';
import type { InflateLimit } from '../io/inflate.js';

/**
 * How many times its size on the drive a shipment may expand by default
 * (`--max-expansion`). Real data stays far below: measured with
 * `brickpost pack`, a mixed dataset expands 1.7 times, source text 5 times, a hundred
 * copies of one file 99 times. Holes of sparse files do not count (they are
 * neither stored nor written), nor do held refs (the destination's own
 * data). What reaches the limit is a long run of one repeated byte stored
 * without holes: a 1 GiB file of zeros expands 16,000 times, and such a
 * shipment needs the option.
 */
export const DEFAULT_MAX_EXPANSION = 10_000;

/**
 * The limit of a command's option (default DEFAULT_MAX_EXPANSION).
 * @throws BrickpostError USAGE (not a whole number from 1, nor 'none')
 */
export function expansionLimit(option: ExpansionLimit | undefined): ExpansionLimit {
  const ratio = option ?? DEFAULT_MAX_EXPANSION;
  if (ratio !== 'none' && (!Number.isSafeInteger(ratio) || ratio < 1)) {
    throw new BrickpostError('USAGE', `--max-expansion ${quote(String(ratio))} must be a whole number from 1, or none`);
  }
  return ratio;
}

/** The refusal of a shipment past its limit; `choices` holds the --max-expansion value that accepts it (the CLI repeats the command with it). */
function refusal(message: string, value: string): BrickpostError {
  return new BrickpostError('LIMIT_EXCEEDED', `${message}; --max-expansion ${value} accepts it`, {
    hint: `only long runs of one repeated byte that are not holes (a large file of zeros) expand so much; if you trust the publisher, run the command again with --max-expansion ${value}`,
    choices: [value],
  });
}

/** The bytes a shipment takes on its drives: every payload file (Payload-Oxum), of every drive of a set. */
export function storedBytes(s: OpenedShipment): number {
  return s.set ? s.set.shares.reduce((a, x) => a + x.bytes, 0) : s.info.payloadBytes;
}

/**
 * Counts, while the manifest streams, the bytes of data a shipment's files
 * take from the drive (packed and delta refs; not holes, not held refs),
 * and refuses the shipment as soon as they pass the limit times its size
 * on the drive. The reader refuses files adding up past the signed
 * Brickpost-Bytes, so `--max-expansion` of Brickpost-Bytes over the stored
 * size always accepts it: that is the value the hint names.
 */
export class DataBudget {
  private data = 0;
  private readonly max: number;
  private readonly stored: number;

  constructor(
    private readonly s: OpenedShipment,
    private readonly limit: ExpansionLimit,
  ) {
    this.stored = Math.max(1, storedBytes(s));
    this.max = limit === 'none' ? Infinity : limit * this.stored;
  }

  /**
   * Adds the refs of one `file` or `more` record (line `line` of the manifest, of file `path`).
   * @throws BrickpostError LIMIT_EXCEEDED
   */
  add(refs: readonly ChunkRef[], line: number, path: string): void {
    for (const ref of refs) if (ref.length >= 5) this.data += ref[4]!;
    if (this.data <= this.max) return;
    const need = Math.max(1, Math.ceil(this.s.info.bytes / this.stored));
    throw refusal(
      `shipment ${quote(this.s.id)} expands more than ${String(this.limit)} times its ${this.stored} bytes on the drive: its files hold more than ${this.max} bytes of data (${MANIFEST_PATH} line ${line}, ${quote(path)})`,
      String(need),
    );
  }
}

/** The limit on what the manifest file of `size` bytes may decode to. */
export function manifestTextLimit(limit: ExpansionLimit, size: number): InflateLimit | undefined {
  if (limit === 'none') return undefined;
  const bytes = limit * Math.max(size, 1);
  return {
    bytes,
    error: (at) =>
      refusal(
        `${MANIFEST_PATH} decodes to more than ${bytes} bytes, ${limit} times its ${size} bytes on the drive (refused at compressed offset ${at})`,
        'none',
      ),
  };
}
