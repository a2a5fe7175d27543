import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import { failpoint } from '../io/failpoint.js';
import type { Progress } from '../io/progress.js';
import { decodeHeader, encodeWindow, windowOfPath, writeWindowFile } from '../recovery/index.js';
import type { OpenedShipment } from './open.js';
import { readPeerHeader } from './peers.js';
import { alreadyWhole } from './rebuild-share.js';

/**
 * Writes again the recovery files of a rebuilt drive (FORMAT.md
 * §recovery-data), once its protected files are in `part`: each window's
 * header comes from the peer copy in `peer` (it records which blocks went
 * to which group, which depended on how pack interleaved its writes), and
 * the recovery blocks are coded from the files the header names. Each file
 * must match its SHA-256 in the signed payload manifest. Returns how many
 * were already whole (kept).
 * @throws BrickpostError FILE_MISSING, MALFORMED (a damaged header copy), FIXITY_MISMATCH, CANCELLED, NO_SPACE, IO
 */
export async function rebuildRecovery(s: OpenedShipment, peer: string, part: string, progress: Progress, signal?: AbortSignal): Promise<number> {
  let kept = 0;
  for (const [rel, sha256] of s.payload) {
    const w = windowOfPath(rel);
    if (w === undefined) continue;
    const file = join(part, rel);
    if (await alreadyWhole(file, undefined, sha256)) {
      kept++;
      progress.add(0, 1);
      continue;
    }
    if (signal?.aborted) throw new BrickpostError('CANCELLED', 'cancelled while rebuilding a drive');
    const h = decodeHeader(await readPeerHeader(peer, rel), rel);
    if (h.window !== w) throw new BrickpostError('MALFORMED', `the copy of the header of ${quote(rel)} is the header of window ${h.window}`, { path: peer });
    const blocks = await encodeWindow(part, h.params, h, h.groups, h.rows);
    if (!blocks)
      throw new BrickpostError(
        'FIXITY_MISMATCH',
        `a block of a file that ${quote(rel)} covers differs from its CRC-32 in the header: the rebuilt files are not the lost drive's`,
        { path: file },
      );
    await rm(file, { force: true });
    const info = await writeWindowFile(
      part,
      h,
      blocks.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
    );
    if (info.sha256 !== sha256) {
      await rm(file, { force: true });
      throw new BrickpostError('FIXITY_MISMATCH', `rebuilt ${quote(rel)} does not match its SHA-256 in the signed payload manifest`, { path: file });
    }
    progress.add(0, 1);
    failpoint('rebuild-file');
  }
  return kept;
}
