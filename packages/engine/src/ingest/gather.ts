import { copyFile, mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import type { OpenedShipment, TrustedSigner } from '../drive/open.js';
import { payloadBound, withinTotal } from '../drive/payload-bound.js';
import { copyDriveFile } from '../io/read-limited.js';
import { openMembers, requireRecoverable, setStatus, type SetMembers } from '../drive/set.js';
import { CUSTODY_TAG_FILE, DRIVE_DIR, SIGNATURE_FILE, TAG_FILES, TAG_MANIFEST } from '../drive/layout.js';
import { toEnvironmentError } from '../io/errors.js';
import { requireSpace } from '../io/space.js';
import { syncDir } from '../io/sync.js';
import { removeTree } from '../io/remove-tree.js';

/**
 * A drive set ingested with one drive at a time (one USB port): the shares
 * of drives already seen are copied into DEST/.brickpost/gather/ID/ and
 * count as present, so each run with the next drive adds one, and the run
 * that completes k drives ingests. Returns the members with the gathered
 * drives added; with `gather`, copies the given drives when the set is
 * still short, then refuses naming the drives still needed.
 * Refuses with NO_SPACE before copying when DEST's file system cannot hold
 * the copies (their Payload-Oxum sizes).
 * @throws BrickpostError SET_INCOMPLETE, SET_MISMATCH, FIXITY_MISMATCH, NO_SPACE, IO, and what openShipment throws
 */
export async function withGathered(m: SetMembers, state: string, gather: boolean, trusted: TrustedSigner[], onEvent: EventSink): Promise<SetMembers> {
  if (!m.set) return m;
  const home = join(state, 'gather', m.first.id);
  const have = (await readdir(home).catch(() => [] as string[])).filter((n) => /^drive-[0-9]+$/.test(n)).sort();
  const all: SetMembers = { ...m, members: new Map(m.members) };
  if (have.length > 0) {
    const g = await openMembers(
      have.map((n) => join(home, n)),
      trusted,
      m.first.id,
    );
    if (g.first.payload.get('data/set.tsv') !== m.first.payload.get('data/set.tsv')) {
      throw new BrickpostError('SET_MISMATCH', `the drives gathered in ${quote(home)} carry another set file than ${quote(m.first.dir)}`, {
        hint: `remove ${home} and gather again`,
      });
    }
    for (const [i, s] of g.members) if (!all.members.has(i)) all.members.set(i, s);
  }
  if (setStatus(all.set!, all.members.keys()).recoverable || !gather) {
    requireRecoverable(all);
    return all;
  }
  const copies = [...m.members].filter(([i]) => !have.includes(`drive-${i + 1}`));
  const drives = copies.map(([i]) => i + 1).join(', ');
  await requireSpace(
    state,
    copies.reduce((a, [, s]) => a + s.info.payloadBytes, 0),
    { where: 'destination folder', what: `gathering drive ${drives} of the set` },
  );
  for (const [i, s] of copies) {
    await copyBag(s, join(home, `drive-${i + 1}`, DRIVE_DIR, m.first.id));
    onEvent({ type: 'warning', code: 'GATHERED', message: `copied drive ${i + 1} of the set into ${home}` });
  }
  requireRecoverable(all);
  return all;
}

/**
 * Copies a bag, checking each payload file against its digest as it is
 * read, and within the size signed data gives it (the set file's, in all
 * at most Payload-Oxum); the copy appears only when complete.
 */
async function copyBag(s: OpenedShipment, to: string): Promise<void> {
  const from = s.dir;
  const part = `${to}.part`;
  await removeTree(part);
  try {
    for (const name of [...TAG_FILES, CUSTODY_TAG_FILE, TAG_MANIFEST, SIGNATURE_FILE]) {
      await mkdir(part, { recursive: true });
      await copyFile(join(from, name), join(part, name)).catch((e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      });
    }
    let left = s.info.payloadBytes;
    for (const [rel, digest] of s.payload) {
      const bound = withinTotal(payloadBound(s, rel), left, s.info.payloadBytes);
      left -= await copyDriveFile(join(from, rel), join(part, rel), digest, rel, bound);
    }
    await syncDir(part);
    await rename(part, to);
  } catch (e) {
    await removeTree(part);
    throw toEnvironmentError(e, `cannot gather ${from}`);
  }
}
