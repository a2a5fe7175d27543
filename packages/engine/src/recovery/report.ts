/**
 * What scanRecovery and repairRecovery report: per protected file, the
 * damaged blocks and whether they can be (or were) rebuilt; per recovery
 * file, whether its recovery data is lost or degraded.
 */
import type { ErrorCode } from '@brickpost/manifest';
import type { Progress } from '../io/progress.js';
import type { Entry } from './bag-io.js';

/**
 * A protected file's state. Scan: intact, repairable, unrepairable.
 * Repair: intact, repaired, unrepairable, digest-mismatch (every damaged
 * block was rebuilt but the file's SHA-256 still differs from the payload
 * manifest, so the recovery data or the file is wrong in a way CRC-32
 * did not see).
 */
export type RecoveryFileStatus = 'intact' | 'repairable' | 'unrepairable' | 'repaired' | 'digest-mismatch';

/** One protected file, as the recovery data describes it. */
export interface RecoveryFileReport {
  /** Bag path. */
  path: string;
  status: RecoveryFileStatus;
  /** Blocks the readable recovery data covers. */
  blocks: number;
  /** Size the recovery data records, null when the window holding the file's last block is lost. */
  size: number | null;
  /** Size on the drive before any repair, null when the file is missing or not a regular file. */
  actualSize: number | null;
  /** Block indices (offset / block size) found damaged: CRC-32 mismatch, unreadable, missing or cut off. */
  damaged: number[];
  /** The damaged blocks that cannot be rebuilt: their group has more erasures than intact recovery rows. */
  unrepairable: number[];
  /** Why the file is not intact or could not be repaired, in words. */
  reason?: string;
}

/** A recovery file that is not fully usable. */
export interface RecoveryWindowReport {
  window: number;
  /** Bag path of the recovery file. */
  path: string;
  /**
   * lost: missing or both header copies damaged, so the blocks it covered
   * are unknown and unprotected; refused: an intact header that breaks a
   * rule (`code` says which), used for nothing; degraded: usable, but some
   * recovery blocks or one header copy are damaged.
   */
  state: 'lost' | 'refused' | 'degraded';
  reason: string;
  code?: ErrorCode;
  /** Damaged or unreadable recovery blocks (degraded windows). */
  damagedRows: number;
}

/** The result of scanRecovery or repairRecovery. */
export interface RecoveryReport {
  /** Recovery files the payload manifest lists. */
  windows: number;
  /** Protected blocks checked, damaged, and beyond repair. */
  blocks: number;
  damagedBlocks: number;
  unrepairableBlocks: number;
  /** Blocks rebuilt and written (repair only). */
  repairedBlocks: number;
  bytesRead: number;
  /** Every file the readable recovery data covers, in order of first appearance. */
  files: RecoveryFileReport[];
  /** Recovery files that are lost, refused or degraded. */
  windowProblems: RecoveryWindowReport[];
}

/** Options of scanRecovery and repairRecovery. */
export interface RecoveryReadOptions {
  /** Receives the bytes read. */
  progress?: Progress;
  /** Stops the job with CANCELLED between reads. */
  signal?: AbortSignal | undefined;
  /**
   * The bag's payload manifest (bag path → SHA-256 hex) as the caller read
   * it, once, and checked against the signed tag manifest (openShipment's
   * `payload`); every pass uses it. Without it the file is read from the
   * bag, unauthenticated.
   */
  payload?: ReadonlyMap<string, string>;
  /**
   * The most bytes signed data allows each protected file (bag path) to
   * hold (drive/payload-bound.ts): nothing past it is read, a recovery
   * header naming blocks past it is refused, a longer file is never hashed
   * whole, and one whose recorded size is unknown is not repairable.
   */
  bound?: (rel: string) => number;
}

/** The scan status of a file from its tallies and what is on the drive (`bound`: what signed data allows it), and why when it is not intact. */
export function scanStatus(f: RecoveryFileReport, entry: Entry, bound = Infinity): { status: RecoveryFileStatus; reason?: string } {
  if (entry.kind === 'unsafe') return { status: 'unrepairable', reason: `${entry.why}: brickpost does not write through it` };
  if (entry.kind === 'missing' && f.size === null)
    return { status: 'unrepairable', reason: 'missing, and its size is unknown (the recovery file of its last block is lost)' };
  if (f.unrepairable.length > 0) {
    return { status: 'unrepairable', reason: `${f.unrepairable.length} of ${f.damaged.length} damaged blocks are beyond what the recovery data can rebuild` };
  }
  if (f.size === null && f.actualSize !== null && f.actualSize > bound) {
    return {
      status: 'unrepairable',
      reason: `${f.actualSize} bytes, more than the ${bound} signed data allows, and its size is unknown (the recovery file of its last block is lost)`,
    };
  }
  if (f.damaged.length > 0) return { status: 'repairable', reason: `${f.damaged.length} damaged blocks` };
  if (f.size !== null && f.actualSize !== null && f.actualSize > f.size) {
    return {
      status: 'repairable',
      reason: `${f.actualSize} bytes, longer than the ${f.size} recorded: repair cuts it to ${f.size} bytes, then checks it against its signed SHA-256`,
    };
  }
  if (f.size !== null && f.actualSize !== f.size) return { status: 'repairable', reason: `${f.actualSize ?? 0} bytes, ${f.size} expected` };
  return { status: 'intact' };
}
