import { copyFile, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { BrickpostError, isBrickpostError, MANIFEST_PATH, quote, SET_PATH } from '@brickpost/manifest';
import type { EventSink, RebuildDriveOptions, RebuildDriveSummary } from '../api/index.js';
import type { Context } from '../context.js';
import { appendCustody } from '../custody/append.js';
import { custodyLogOf } from '../custody/locate.js';
import { commandLine } from '../io/command.js';
import { toEnvironmentError } from '../io/errors.js';
import { failpoint } from '../io/failpoint.js';
import { makeFolders } from '../io/folders.js';
import { Progress } from '../io/progress.js';
import { syncDir } from '../io/sync.js';
import { trustedVerifiers } from '../keys/index.js';
import { checkFixity } from '../verify/fixity.js';
import { bagDir, DRIVE_DIR, PART_SUFFIX } from '../drive/layout.js';
import { openShipment, type OpenedShipment, type TrustedSigner } from '../drive/open.js';
import { copyPeers, PEER_TAG_FILES, peerDir } from '../drive/peers.js';
import { copyDriveFile } from '../io/read-limited.js';
import { rebuildRecovery } from '../drive/rebuild-recovery.js';
import { alreadyWhole, writeShare } from '../drive/rebuild-share.js';
import { CUSTODY_TAG_FILE, SIGNATURE_FILE } from '../drive/layout.js';
import { openMembers, setStatus, type SetMembers } from '../drive/set.js';

/** Entries a new drive may hold besides brickpost/: what file systems create on their own. */
const SYSTEM_ENTRIES = new Set(['lost+found', 'System Volume Information', '$RECYCLE.BIN', '.Trashes', '.fseventsd', '.Spotlight-V100']);

/**
 * Rebuilds a lost drive of a set (data or parity) onto a new drive from
 * any k others (FORMAT.md §drive-sets, §peer-copies), without any key but
 * the publisher's public one: the payload from the parity, the signed tag
 * files and recovery headers from the copies the other drives carry. The
 * drive is written under `<id>.part`, checked as `verify` checks a drive
 * (signature, tag files, every payload file's SHA-256), and only then
 * renamed into place; a `rebuilt` custody event names the drives it came
 * from. A run interrupted keeps the files it finished.
 * @throws BrickpostError USAGE (which drive, the target), NOT_FOUND, SET_INCOMPLETE, SET_MISMATCH, FIXITY_MISMATCH (a source drive damaged, or the rebuilt drive does not verify), FILE_MISSING (no copies of the drive's tag files), authenticity, NO_SPACE, IO, CANCELLED
 */
export async function rebuildDrive(ctx: Context, opts: RebuildDriveOptions, onEvent: EventSink, signal?: AbortSignal): Promise<RebuildDriveSummary> {
  const started = performance.now();
  if (opts.from.length === 0)
    throw new BrickpostError('USAGE', 'no drive to rebuild from', { hint: 'give the drives of the set you have, each with --from DRIVE' });
  const trusted = trustedVerifiers(ctx.catalog);
  const to = resolve(opts.to);
  if (opts.from.some((d) => resolve(d) === to))
    throw new BrickpostError('USAGE', `${quote(opts.to)} is given both as a drive to rebuild from and as the new drive`, {
      hint: 'give the new, empty drive with --to only',
    });
  const m = await openMembers(opts.from, trusted, opts.shipment);
  const set = m.set;
  if (!set)
    throw new BrickpostError('USAGE', `shipment ${quote(m.first.id)} is on a single drive, not a drive set: there is no parity to rebuild a drive from`, {
      hint: 'copy the drive instead, and check the copy with brickpost verify',
    });
  const id = m.first.id;
  if (set.parity === 0) {
    throw new BrickpostError(
      'SET_INCOMPLETE',
      `shipment ${quote(id)} is a set of ${set.shares.length} drives without parity: a lost drive cannot be computed from the others`,
      {
        hint: 'ask the publisher for a new copy of the lost drive (pack --parity M makes sets that survive M lost drives)',
      },
    );
  }
  const target = whichDrive(m, opts.member);
  const n = set.shares.length;
  const have = [...m.members.keys()].sort((a, b) => a - b);
  if (have.length < set.data) {
    const others = Array.from({ length: n }, (_, i) => i).filter((i) => i !== target && !m.members.has(i));
    const needed = set.data - have.length;
    throw new BrickpostError(
      'SET_INCOMPLETE',
      `shipment ${quote(id)} is a set of ${n} drives (${set.data} data, ${set.parity} parity): rebuilding drive ${target + 1} needs ${set.data} of the others; drives ${have.map((i) => i + 1).join(', ')} are here, ` +
        `${needed} more of drives ${others.map((i) => i + 1).join(', ')} ${needed === 1 ? 'is' : 'are'} needed`,
      { hint: `mount ${needed === 1 ? 'one of them' : `${needed} of them`} and give each with --from` },
    );
  }
  const bag = bagDir(to, id);
  const part = bag + PART_SUFFIX;
  await checkTarget(to, id, target, n);
  await makeFolders(part).catch((e: unknown) => {
    throw toEnvironmentError(e, `cannot create the shipment folder on ${quote(opts.to)}`, { on: 'drive', path: part });
  });

  // The signed tag files first: the payload manifest they authenticate says what every other file must be.
  const { shipment: s, source, setKept } = await placeTags(m, target, part, trusted);
  const chosen = have.slice(0, set.data);
  const dirs = new Map(have.map((i) => [i, m.members.get(i)!.dir]));
  const share = set.shares[target]!;
  const progress = new Progress(onEvent, 'rebuild');
  progress.bytesTotal = share.bytes;
  progress.filesTotal = s.payload.size;
  let kept = setKept ? 1 : 0;
  const manifest = join(part, MANIFEST_PATH);
  if (await alreadyWhole(manifest, undefined, s.payload.get(MANIFEST_PATH)!)) kept++;
  else await copyDriveFile(join(source.dir, MANIFEST_PATH), manifest, s.payload.get(MANIFEST_PATH)!, MANIFEST_PATH);
  progress.add(0, 2);
  const written = await writeShare(set, target, chosen, dirs, part, progress, signal);
  kept += written.filter((w) => w.kept).length;
  kept += await rebuildRecovery(s, peerDir(source.dir, target + 1), part, progress, signal);
  progress.emit();
  await copyPeers(part, target, n, m.members);

  // Checked as verify checks a drive, from what is on the disk now, before it takes its place.
  const check = new Progress(onEvent, 'check');
  const again = await openShipment(id, part, trusted);
  const fixity = await checkFixity(again, check, signal);
  check.emit();
  if (fixity.problems.length > 0) {
    const p = fixity.problems[0]!;
    throw new BrickpostError(
      'FIXITY_MISMATCH',
      `the rebuilt drive ${target + 1} does not verify (${fixity.problems.length} problems; first: ${p.message}); it is left unfinished at ${quote(part)}`,
      {
        ...(p.path ? { path: p.path } : {}),
        hint: `verify each drive used (${chosen.map((i) => commandLine(['verify', dirs.get(i)!])).join('; ')}), then run the same rebuild again`,
      },
    );
  }
  failpoint('rebuild-publish');
  try {
    await syncTree(part);
    await rename(part, bag);
    await syncDir(join(to, DRIVE_DIR));
  } catch (e) {
    throw toEnvironmentError(e, `cannot move the rebuilt shipment into place on ${quote(opts.to)}`, { on: 'drive', path: part });
  }
  const from = chosen.map((i) => ({ drive: i + 1, path: dirs.get(i)! }));
  const files = again.payload.size;
  const bytes = again.info.payloadBytes;
  const custody = await appendCustody(
    ctx,
    { shipment: id, drive: `${target + 1} of ${n}`, bag, log: custodyLogOf(bag) },
    'rebuilt',
    { from: `drives ${from.map((f) => f.drive).join(', ')} of ${n}`, files, bytes },
    onEvent,
  );
  return {
    shipmentId: id,
    drive: target + 1,
    drives: n,
    kind: share.kind,
    from,
    path: bag,
    files,
    bytes,
    kept,
    custody: custody.where,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * The share to rebuild (0-based): `member` when given, else the one drive
 * of the set missing from those given.
 * @throws BrickpostError USAGE
 */
function whichDrive(m: SetMembers, member: number | undefined): number {
  const set = m.set!;
  const n = set.shares.length;
  if (member !== undefined) {
    if (!Number.isInteger(member) || member < 1 || member > n)
      throw new BrickpostError('USAGE', `--member ${member} is not a drive of this set: it has drives 1 to ${n}`);
    const here = m.members.get(member - 1);
    if (here) {
      throw new BrickpostError(
        'USAGE',
        `drive ${member} of the set is among the drives given (${quote(here.dir)}): rebuild a drive from the others, not from itself`,
        {
          hint: 'leave the failed drive out of --from',
        },
      );
    }
    return member - 1;
  }
  const st = setStatus(set, m.members.keys());
  if (st.missing.length === 1) return st.missing[0]! - 1;
  if (st.missing.length === 0)
    throw new BrickpostError('USAGE', `every drive of the set is among the drives given: none is lost`, {
      hint: 'leave the failed drive out of --from, or name it with --member N',
    });
  throw new BrickpostError('USAGE', `drives ${st.missing.join(', ')} of the set are not among the drives given: say which one to rebuild`, {
    hint: `add --member N, for example --member ${st.missing[0]}`,
  });
}

/**
 * Refuses a new drive that holds anything but what file systems create on
 * their own and an interrupted rebuild of this same drive.
 * @throws BrickpostError NOT_FOUND, USAGE
 */
async function checkTarget(to: string, id: string, target: number, n: number): Promise<void> {
  const st = await stat(to).catch(() => null);
  if (!st?.isDirectory())
    throw new BrickpostError('NOT_FOUND', `new drive ${quote(to)} is not a folder`, { hint: 'mount the new drive, or create the folder standing in for it' });
  if (await stat(bagDir(to, id)).catch(() => null)) {
    throw new BrickpostError('USAGE', `${quote(to)} already holds shipment ${quote(id)}: it is a drive of the set, not a new one`, {
      hint: `check it with: ${commandLine(['verify', to])}; give an empty drive to rebuild drive ${target + 1} of ${n} onto`,
    });
  }
  const other = (await readdir(to)).filter((e) => !SYSTEM_ENTRIES.has(e) && e !== DRIVE_DIR);
  const inside = (await readdir(join(to, DRIVE_DIR)).catch(() => [] as string[])).filter((e) => e !== id + PART_SUFFIX);
  const found = [...other, ...inside.map((e) => `${DRIVE_DIR}/${e}`)];
  if (found.length > 0) {
    throw new BrickpostError(
      'USAGE',
      `new drive ${quote(to)} is not empty: it holds ${found
        .slice(0, 3)
        .map((f) => quote(f))
        .join(', ')}${found.length > 3 ? ', …' : ''}`,
      {
        hint: 'give an empty drive (rebuilding writes a whole drive and removes nothing)',
      },
    );
  }
}

/**
 * Copies the tag files of drive `target` + 1 into `part` from the first
 * drive given that carries copies of them, with bagit.txt and FORMAT.md
 * from that drive's own bag, and the set file; then opens `part` as a
 * shipment, strictly: the copies must be signed by the publisher and name
 * drive `target` + 1 of this set. Returns the opened shipment and the drive
 * the copies came from.
 * @throws BrickpostError FILE_MISSING (no drive carries copies), authenticity, SET_MISMATCH, MALFORMED, IO
 */
async function placeTags(
  m: SetMembers,
  target: number,
  part: string,
  trusted: TrustedSigner[],
): Promise<{ shipment: OpenedShipment; source: OpenedShipment; setKept: boolean }> {
  const n = m.set!.shares.length;
  let last: BrickpostError | null = null;
  for (const source of [...m.members.values()]) {
    const dir = peerDir(source.dir, target + 1);
    if (!(await stat(join(dir, SIGNATURE_FILE)).catch(() => null))) continue;
    try {
      for (const name of PEER_TAG_FILES) await copyFile(join(dir, name), join(part, name));
      for (const name of ['bagit.txt', 'FORMAT.md']) await copyFile(join(source.dir, name), join(part, name));
      await makeFolders(join(part, 'data'));
      const setKept = await alreadyWhole(join(part, SET_PATH), undefined, source.payload.get(SET_PATH)!);
      if (!setKept) await copyDriveFile(join(source.dir, SET_PATH), join(part, SET_PATH), source.payload.get(SET_PATH)!, SET_PATH);
      const s = await openShipment(m.first.id, part, trusted);
      if (
        s.info.bagIndex !== target + 1 ||
        s.info.bagCount !== n ||
        s.payload.get(SET_PATH) !== source.payload.get(SET_PATH) ||
        s.payload.get(MANIFEST_PATH) !== source.payload.get(MANIFEST_PATH)
      ) {
        throw new BrickpostError(
          'SET_MISMATCH',
          `the copies of drive ${target + 1}'s tag files on ${quote(source.dir)} describe drive ${s.info.bagIndex} of ${s.info.bagCount}, or another set`,
        );
      }
      return { shipment: s, source, setKept };
    } catch (e) {
      if (!isBrickpostError(e) || e.category === 'environment') throw e;
      last = e;
      for (const name of [...PEER_TAG_FILES, CUSTODY_TAG_FILE]) await rm(join(part, name), { force: true });
    }
  }
  if (last) throw last;
  throw new BrickpostError(
    'FILE_MISSING',
    `no drive given carries a copy of drive ${target + 1}'s signed tag files (a set packed before drives carried them): its signature cannot be made again without the publisher's key`,
    {
      hint: 'ask the publisher for a new copy of that drive, or ingest from the drives you have (any k of them are enough)',
    },
  );
}

/** Flushes every file and folder under `dir` to disk, folders after what they hold. */
async function syncTree(dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await syncTree(p);
    else if (e.isFile()) {
      const fh = await open(p, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
  }
  await syncDir(dir);
}
