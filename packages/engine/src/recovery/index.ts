/**
 * Recovery data (FORMAT.md §recovery-data): per-drive erasure-coded blocks,
 * stored beside the protected files of a bag, so that bit rot and bad
 * sectors inside one drive are repaired from that drive alone.
 *
 * Terms:
 * - protected file: a payload file pack feeds to the RecoveryWriter (the
 *   manifest, packs, set file, parity); the recovery files themselves are not.
 * - block: B bytes of a protected file at offset i × B (block index i); the
 *   last block of a file may be short and is zero-padded for coding.
 * - window: W = g × I consecutive blocks, numbered drive-wide in the order
 *   they complete; one recovery file each, data/recovery/DDD/WWWWWW.rec.
 * - group: one of the I groups of a window (interleave I), g members at
 *   most. Each file's consecutive blocks go to the groups in turn, so a
 *   run of damage in one file hits each group at most ceil(run / I) times,
 *   however files were interleaved while they were written.
 * - recovery row: row j of the group's Cauchy code with k = g (parity/);
 *   a group of c members has ceil(c × percent / 100) rows, and rebuilds as
 *   many damaged members as it has intact rows.
 * - header: what a recovery file covers and the CRC-32 of every block, in
 *   two copies, each sealed by its SHA-256.
 */
export { RecoveryWriter, type RecoveryWriterOptions } from './writer.js';
export type { RecoveryFileInfo } from './rec-file.js';
export { scanRecovery } from './scan.js';
export { encodeWindow } from './last-window.js';
export { decodeHeader, type WindowHeader } from './header.js';
export { writeWindowFile } from './rec-file.js';
export { repairRecovery } from './repair.js';
export type { RecoveryFileReport, RecoveryFileStatus, RecoveryReadOptions, RecoveryReport, RecoveryWindowReport } from './report.js';
export {
  DEFAULT_BLOCK_SIZE,
  DEFAULT_INTERLEAVE,
  RECOVERY_DIR,
  RECOVERY_FORMAT,
  groupSizeFor,
  recoveryParams,
  recoveryPath,
  rowsFor,
  windowOfPath,
  type RecoveryParams,
} from './params.js';
