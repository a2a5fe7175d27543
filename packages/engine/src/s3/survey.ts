import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { BrickpostError, displayName, quote, type ChunkRef, type FileRecord } from '@brickpost/manifest';
import type { Readable } from '../extract/open.js';
import { readManifest } from '../verify/manifest-stream.js';
import { ETAG } from './meta.js';
import { STATE_DIR, type Objects } from './objects.js';

/** What the first pass over a shipment found, for an object storage destination. */
export interface Survey {
  files: number;
  dirs: number;
  bytes: number;
  links: number;
  hardLinks: number;
  specials: number;
  incremental: boolean;
  notApplied: Record<string, number>;
  /** Objects under the prefix that brickpost did not write and the shipment does not name: kept. */
  foreign: number;
}

/** S3's longest key, in bytes. */
const KEY_MAX = 1024;

/**
 * The first pass: writes the shipment's tree (state.ts) into `tree` (each
 * file's size and a digest of its chunk list, each chunk's place), and
 * refuses, before anything is written, what the prefix cannot hold: a name
 * that is not UTF-8, a key longer than S3's 1024 bytes, and an object at a
 * key the shipment writes that brickpost did not write (not in the old
 * tree). Links and special files are counted as not applied.
 * @throws BrickpostError USAGE (names or objects in the way; nothing changed), and what reading the drive and listing throw
 */
export async function survey(r: Readable, tree: Database.Database, o: Objects, oldTree: boolean): Promise<Survey> {
  const s: Survey = { files: 0, dirs: 0, bytes: 0, links: 0, hardLinks: 0, specials: 0, incremental: false, notApplied: {}, foreign: 0 };
  const addFile = tree.prepare('INSERT INTO files (path, size, marker, digest) VALUES (?, ?, ?, ?)');
  const addChunk = tree.prepare('INSERT OR IGNORE INTO chunks (id, path, offset, len) VALUES (?, ?, ?, ?)');
  const sizeOf = tree.prepare('SELECT size FROM files WHERE path = ?').pluck();
  const cannot: string[] = [];
  const check = (p: string): void => {
    if (!p.isWellFormed() || /[\udc80-\udcff]/.test(p)) cannot.push(`${quote(displayName(p))} (a name that is not UTF-8)`);
    else if (Buffer.byteLength(o.key(p)) > KEY_MAX) cannot.push(`${quote(displayName(p))} (a key longer than ${KEY_MAX} bytes)`);
  };
  let file: { rec: FileRecord; hash: ReturnType<typeof createHash>; offset: number } | null = null;
  const refs = (c: readonly ChunkRef[]): void => {
    for (const ref of c) {
      file!.hash.update(JSON.stringify(ref.length === 1 ? [ref[0]] : [ref[0], ref.length === 2 ? ref[1] : ref[4]]));
      if (ref.length === 1) {
        file!.offset += ref[0];
        continue;
      }
      const len = ref.length === 2 ? ref[1] : ref[4];
      addChunk.run(Buffer.from(ref[0], 'hex'), file!.rec.p, file!.offset, len);
      file!.offset += len;
    }
  };
  const endFile = (): void => {
    if (!file) return;
    addFile.run(file.rec.p, file.rec.size, 0, file.hash.digest());
    file = null;
  };
  const tx = tree.transaction((fn: () => void) => fn());
  // A folder with nothing under it is kept as a folder marker (an empty object `PATH/`); so is one that came from a marker.
  let lastDir: { p: string; marked: boolean } | null = null;
  const endDir = (next: string | null): void => {
    if (lastDir && !lastDir.marked && (next === null || !next.startsWith(lastDir.p + '/'))) addFile.run(lastDir.p + '/', 0, 1, null);
    lastDir = null;
  };
  const notApplied = (why: string): void => void (s.notApplied[why] = (s.notApplied[why] ?? 0) + 1);
  for await (const rec of readManifest(r.shipment, r.identities)) {
    if (rec.t === 'more') {
      if (file) tx(() => refs(rec.c));
      continue;
    }
    endFile();
    endDir(rec.t === 'shipment' || rec.t === 'pack' || rec.t === 'end' ? null : rec.p);
    if (rec.t === 'shipment') s.incremental = rec.bases.length > 0 || rec.against !== null;
    else if (rec.t === 'file') {
      check(rec.p);
      s.files++;
      s.bytes += rec.size;
      file = { rec, hash: createHash('sha256'), offset: 0 };
      tx(() => refs(rec.c));
    } else if (rec.t === 'dir') {
      s.dirs++;
      check(rec.p);
      // A folder that came from a folder marker object (it has an ETag) is written as one again.
      const marked = rec.x?.some(([n]) => n === ETAG) === true;
      if (marked) addFile.run(rec.p + '/', 0, 1, null);
      lastDir = { p: rec.p, marked };
    } else if (rec.t === 'hard') {
      check(rec.p);
      s.hardLinks++;
      addFile.run(rec.p, sizeOf.get(rec.to) ?? 0, 0, null);
    } else if (rec.t === 'link') {
      s.links++;
      notApplied('symbolic link (object storage has none)');
    } else if (rec.t === 'special') {
      s.specials++;
      notApplied(`${rec.kind} (object storage has none)`);
    }
  }
  endFile();
  endDir(null);
  if (cannot.length > 0) {
    throw new BrickpostError(
      'USAGE',
      `object storage cannot hold ${cannot.length} of the shipment's names: ${cannot.slice(0, 5).join(', ')}${cannot.length > 5 ? ', …' : ''}; nothing was changed`,
      {
        hint: 'ingest it into a folder instead (brickpost ingest DRIVE DIR)',
      },
    );
  }
  // Objects brickpost did not write: kept, unless the shipment writes the same key.
  const inTheWay: string[] = [];
  const inOld = oldTree ? tree.prepare('SELECT 1 FROM old.files WHERE path = ?').pluck() : null;
  const inNew = tree.prepare('SELECT 1 FROM files WHERE path = ?').pluck();
  for await (const { rel } of o.list('')) {
    if (rel.startsWith(STATE_DIR)) continue;
    if (inOld?.get(rel)) continue;
    if (inNew.get(rel)) inTheWay.push(rel);
    else s.foreign++;
  }
  if (inTheWay.length > 0) {
    throw new BrickpostError(
      'USAGE',
      `${o.place.url} holds ${inTheWay.length} ${inTheWay.length === 1 ? 'object' : 'objects'} that brickpost did not write at keys the shipment writes: ${inTheWay
        .slice(0, 5)
        .map((k) => quote(k))
        .join(', ')}${inTheWay.length > 5 ? ', …' : ''}; nothing was changed`,
      {
        hint: `ingest into an empty prefix, or move those objects away first (aws s3 mv)`,
      },
    );
  }
  return s;
}
