/**
 * One instruction of a delta, in order: `copy` writes blocks
 * [block, block + count) of the old file (the last block of the old file may
 * be short), `literal` writes its bytes. Applied in order they rebuild the
 * new file.
 */
export type DeltaOp = CopyOp | LiteralOp;

/** Copies `count` ≥ 1 consecutive blocks of the old file, starting at block index `block`. */
export interface CopyOp {
  readonly op: 'copy';
  readonly block: number;
  readonly count: number;
}

/** Writes `data` (at least one byte). */
export interface LiteralOp {
  readonly op: 'literal';
  readonly data: Buffer;
}
