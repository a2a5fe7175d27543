import { copyFile, cp, open, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { makeFolders } from '../io/folders.js';
import { syncDir } from '../io/sync.js';
import { HEADER_PREFIX, headerIntact, headerLength } from '../recovery/header.js';
import { windowOfPath } from '../recovery/params.js';
import { readLimited } from '../io/read-limited.js';
import { CUSTODY_TAG_FILE, SIGNATURE_FILE, TAG_MANIFEST } from './layout.js';

/**
 * Peer copies (FORMAT.md §peer-copies): every drive of a set carries, in
 * its bag folder under `peers/NNN/`, the signed tag files of every other
 * drive NNN of the set and the headers of that drive's recovery files. A
 * lost drive's payload comes back from the others through the parity; its
 * signature and recovery headers, which no courier can make again, come
 * back from these copies. Each copy is authenticated by its own signature
 * when used, never by the bag that carries it.
 */
export const PEERS_DIR = 'peers';

/** The tag files of a drive kept in its peers' copies (bagit.txt and FORMAT.md are the same on every drive). */
export const PEER_TAG_FILES = ['bag-info.txt', 'manifest-sha256.txt', 'README.txt', CUSTODY_TAG_FILE, TAG_MANIFEST, SIGNATURE_FILE] as const;

/** Largest peer tag file read (manifest-sha256.txt's limit, §4.5). */
export const MAX_PEER_TAG = 64 << 20;

/** The folder of drive `drive`'s (1-based) copies inside a bag. */
export function peerDir(bag: string, drive: number): string {
  return join(bag, PEERS_DIR, String(drive).padStart(3, '0'));
}

/** Where the copy of recovery file `rel` (data/recovery/DDD/WWWWWW.rec) of a peer lives, under its peer folder. */
export function peerHeaderPath(dir: string, rel: string): string {
  return join(dir, rel.replace(/^data\//, '').replace(/\.rec$/, '.hdr'));
}

/**
 * Writes the peer copies into each sealed bag of a set (`bags[i]` is drive
 * i + 1): the tag files and recovery headers of every other drive, each
 * file and folder flushed. `recovery[i]` lists drive i + 1's recovery files.
 * @throws BrickpostError NO_SPACE, PERMISSION, IO, MALFORMED (a recovery file just written without an intact header)
 */
export async function writePeerCopies(bags: string[], recovery: string[][]): Promise<void> {
  if (bags.length < 2) return;
  const headers = await Promise.all(
    bags.map(async (bag, j) => Promise.all(recovery[j]!.map(async (rel) => ({ rel, head: await readHeaderCopy(join(bag, rel)) })))),
  );
  await Promise.all(
    bags.map(async (bag, i) => {
      for (const [j, from] of bags.entries()) {
        if (j === i) continue;
        const dir = peerDir(bag, j + 1);
        try {
          await makeFolders(dir);
          for (const name of PEER_TAG_FILES) await copyFile(join(from, name), join(dir, name));
          const folders = new Set<string>([dir]);
          for (const { rel, head } of headers[j]!) {
            const to = peerHeaderPath(dir, rel);
            await makeFolders(dirname(to));
            folders.add(dirname(to));
            await writeSynced(to, head);
          }
          for (const name of PEER_TAG_FILES) await syncFile(join(dir, name));
          for (const f of [...folders].reverse()) await syncDir(f);
        } catch (e) {
          throw toEnvironmentError(e, `cannot write the copies of drive ${j + 1}'s tag files on drive ${i + 1}`, { on: 'drive', path: dir });
        }
      }
      await syncDir(join(bag, PEERS_DIR));
      await syncDir(bag);
    }),
  );
}

/**
 * Gives a rebuilt drive's bag (`part`, drive `target` + 1 of `n`) the peer
 * copies its lost original carried: a drive at hand gives its own tag files
 * and recovery headers, any other drive's copies come from a drive at hand
 * that carries them. Copies are not checked here: each is checked by its
 * own signature when used.
 * @throws BrickpostError NO_SPACE, PERMISSION, IO
 */
export async function copyPeers(part: string, target: number, n: number, members: Map<number, { dir: string; payload: Map<string, string> }>): Promise<void> {
  for (let j = 0; j < n; j++) {
    if (j === target) continue;
    const dir = peerDir(part, j + 1);
    try {
      const own = members.get(j);
      if (own) {
        await makeFolders(dir);
        for (const name of PEER_TAG_FILES) await copyFile(join(own.dir, name), join(dir, name));
        for (const rel of own.payload.keys()) {
          if (windowOfPath(rel) === undefined) continue;
          const to = peerHeaderPath(dir, rel);
          await makeFolders(dirname(to));
          await writeSynced(to, await readHeaderCopy(join(own.dir, rel)));
        }
        continue;
      }
      for (const m of members.values()) {
        const from = peerDir(m.dir, j + 1);
        if (!(await stat(join(from, SIGNATURE_FILE)).catch(() => null))) continue;
        await cp(from, dir, { recursive: true, force: true, errorOnExist: false });
        break;
      }
    } catch (e) {
      throw toEnvironmentError(e, `cannot write the copies of drive ${j + 1}'s tag files`, { on: 'drive', path: dir });
    }
  }
}

/**
 * The first copy of a recovery file's header, which must be intact.
 * @throws BrickpostError MALFORMED, IO
 */
export async function readHeaderCopy(file: string): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const prefix = Buffer.alloc(HEADER_PREFIX);
    await fh.read(prefix, 0, HEADER_PREFIX, 0);
    const length = headerLength(prefix);
    const b = length === undefined ? Buffer.alloc(0) : Buffer.alloc(length);
    if (length !== undefined) await fh.read(b, 0, length, 0);
    if (!headerIntact(b)) throw new BrickpostError('MALFORMED', `recovery file ${quote(file)} has no intact header`, { path: file });
    return b;
  } finally {
    await fh.close();
  }
}

/**
 * Reads a peer copy of a drive's recovery header, which must be intact.
 * @throws BrickpostError FILE_MISSING, LIMIT_EXCEEDED, MALFORMED, IO
 */
export async function readPeerHeader(dir: string, rel: string): Promise<Buffer> {
  const path = peerHeaderPath(dir, rel);
  const b = await readLimited(path, 16 << 20, `copy of the header of ${quote(rel)}`);
  if (!headerIntact(b)) throw new BrickpostError('MALFORMED', `the copy of the header of ${quote(rel)} at ${quote(path)} is damaged`, { path });
  return b;
}

/** The drive numbers (1-based) a bag holds peer copies of. */
export async function peersIn(bag: string): Promise<number[]> {
  const names = await readdir(join(bag, PEERS_DIR)).catch(() => [] as string[]);
  return names
    .filter((n) => /^[0-9]{3}$/.test(n))
    .map(Number)
    .filter((n) => n >= 1);
}

async function writeSynced(file: string, data: Buffer): Promise<void> {
  const fh = await open(file, 'w', 0o644);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function syncFile(file: string): Promise<void> {
  const fh = await open(file, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
