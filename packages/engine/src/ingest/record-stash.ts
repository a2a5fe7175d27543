import type { ManifestRecord } from '@brickpost/manifest';

/** Records a stash holds at most (header, packs and end included), and chunk refs: about 13 MB of refs at most. */
export const STASH_RECORDS = 16_384;
export const STASH_REFS = 65_536;

/**
 * The manifest's records the staging walk needs, kept by the plan as it
 * reads them: the header, the records of each file it stages, the packs
 * and the end. An incremental shipment stages a few of its files, and
 * the walk then goes through those instead of reading, decrypting and
 * parsing the whole manifest a second time (1 s of a 300,000-file
 * ingest with one file changed). Past STASH_RECORDS records or STASH_REFS
 * refs it keeps nothing (`records()` is null) and the walk reads the
 * manifest as before, so memory stays bounded whatever the shipment.
 *
 * The plan calls `next` with each record but continuation records
 * (`more`, given to `more`), after it decided on the file before, and
 * `staged` or `kept` once it decided on the current file.
 */
export class RecordStash {
  private readonly kept_: ManifestRecord[] = [];
  /** The current file's records, until the plan decides on it. */
  private pending: ManifestRecord[] | null = null;
  private refs = 0;
  private pendingRefs = 0;
  private full = false;

  constructor(
    private readonly maxRecords = STASH_RECORDS,
    private readonly maxRefs = STASH_REFS,
  ) {}

  next(r: ManifestRecord): void {
    if (this.full) return;
    if (r.t === 'file') {
      this.pending = [r];
      this.pendingRefs = r.c.length;
      this.check();
    } else if (r.t === 'shipment' || r.t === 'pack' || r.t === 'end') {
      this.kept_.push(r);
      this.check();
    }
  }

  more(r: ManifestRecord & { t: 'more' }): void {
    if (this.full || this.pending === null) return;
    this.pending.push(r);
    this.pendingRefs += r.c.length;
    this.check();
  }

  /** The current file is staged: its records are kept. */
  staged(): void {
    if (this.pending === null) return;
    for (const r of this.pending) this.kept_.push(r);
    this.refs += this.pendingRefs;
    this.pending = null;
    this.pendingRefs = 0;
  }

  /** The current file stays as DEST has it: the walk does not need it. */
  kept(): void {
    this.pending = null;
    this.pendingRefs = 0;
  }

  /** The records kept, in manifest order; null when there were too many. */
  records(): readonly ManifestRecord[] | null {
    return this.full ? null : this.kept_;
  }

  private check(): void {
    const records = this.kept_.length + (this.pending?.length ?? 0);
    if (records <= this.maxRecords && this.refs + this.pendingRefs <= this.maxRefs) return;
    this.full = true;
    this.kept_.length = 0;
    this.pending = null;
  }
}
