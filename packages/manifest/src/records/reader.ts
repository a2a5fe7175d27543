import { BrickpostError, quote } from '../errors.js';
import { parseStrictJson, roundTrips, type Json } from './json.js';
import { checkPath, checkPathName, compareFolded, comparePaths, foldKey } from './path.js';
import { checkRecord } from './schema.js';
import {
  manifestVersion,
  RECORD_LIMITS,
  type ChunkRef,
  type EndRecord,
  type EntryRecord,
  type ManifestRecord,
  type PackRecord,
  type ShipmentRecord,
  refLength,
} from './types.js';

/** Declared totals a reader checks the manifest against (from the signed bag-info). */
export interface ManifestExpectations {
  entries?: number;
  packs?: number;
  /** Brickpost-Bytes: the sizes of the files may not add up to more (refused at the file record that passes it). */
  bytes?: number;
}

/**
 * Siblings whose names differ only in case or Unicode normalisation (equal
 * fold keys, FORMAT.md §order): a v2 manifest may hold them; a destination
 * that cannot tell them apart must refuse the shipment (ingest decides).
 */
export interface NameCollision {
  /** The folder holding them ('' for the top). */
  parent: string;
  /** The names, in manifest order (at most MAX_COLLISION_NAMES). */
  names: string[];
}

/** How JSON.stringify writes a lone surrogate (a pair it writes as is). */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f]/i;

/** How deep a record written is nested at most (a file record's chunk refs, an ACL's entries): deeper, its line is parsed instead. */
const MAX_WRITTEN_DEPTH = 4;

/** Collision groups a reader keeps (the rest are counted), and names per group. */
export const MAX_COLLISIONS = 1000;
export const MAX_COLLISION_NAMES = 16;

/**
 * Validates a manifest one line at a time, in bounded memory: record shapes,
 * record order, the tree rules (every entry's parent declared before it,
 * siblings strictly ascending in manifest order, which also rules out
 * duplicates and case/normalisation collisions), chunk lengths adding up to
 * file sizes, and the trailer's totals. State is one directory stack, so
 * memory does not grow with the number of entries.
 */
export class ManifestReader {
  private line = 0;
  private header: ShipmentRecord | null = null;
  private end: EndRecord | null = null;
  /** Open directories from the root down: their path, the last child name seen, and the group of children sharing its fold key. */
  private stack: Level[] = [{ path: '', last: null, lastKey: '', group: null }];
  private file: { path: string; size: number; seen: number; basis: boolean; hole: boolean } | null = null;
  /** Whether refs to chunks the destination holds are allowed (the shipment has bases or is built against a signature). */
  private relative = false;
  private phase: 'header' | 'tree' | 'packs' | 'done' = 'header';
  private packsSeen = 0;
  /** The manifest format version, from the header (1 until it is read). */
  version: 1 | 2 = 1;
  readonly totals = { dirs: 0, files: 0, links: 0, hard: 0, specials: 0, bytes: 0, chunks: 0, packs: 0 };
  /** Name collisions seen so far (v2), at most MAX_COLLISIONS; `collisionCount` counts them all. */
  readonly collisions: NameCollision[] = [];
  collisionCount = 0;

  constructor(
    private readonly where = 'manifest',
    private readonly expect: ManifestExpectations = {},
  ) {}

  /** The header, once the first line has been read. */
  get shipment(): ShipmentRecord {
    if (!this.header) throw new BrickpostError('TRUNCATED', `${this.where}: no shipment header`);
    return this.header;
  }

  /**
   * Parses and validates one line (without its newline).
   * @throws BrickpostError MALFORMED, UNSAFE_PATH, LIMIT_EXCEEDED
   */
  push(text: string): ManifestRecord {
    return this.pushParsed(text, null);
  }

  /**
   * push() for a line JSON.stringify just wrote (ManifestWriter), or one
   * push() accepted before (a second read of the same bytes): such text
   * has no duplicate keys and no number but what the record held, so
   * JSON.parse reads it as the strict parser would, in a third of the time;
   * the record checks that follow refuse what the strict parser would
   * (non-integers, unsafe integers). A lone surrogate, which JSON.stringify
   * writes as an escape, goes through the strict parser to be refused.
   * `value`, the value the line was stringified from, is checked as it is
   * when parsing the line would give it back unchanged (roundTrips), which
   * spares the parse.
   */
  pushWritten(text: string, value?: unknown): ManifestRecord {
    if (LONE_SURROGATE_ESCAPE.test(text)) return this.pushParsed(text, null);
    return this.pushParsed(text, value !== undefined && roundTrips(value, MAX_WRITTEN_DEPTH) ? value : (JSON.parse(text) as Json));
  }

  private pushParsed(text: string, parsed: Json | null): ManifestRecord {
    this.line++;
    const where = `${this.where} line ${this.line}`;
    if (text.length > RECORD_LIMITS.lineBytes) throw new BrickpostError('LIMIT_EXCEEDED', `${where}: line longer than ${RECORD_LIMITS.lineBytes} bytes`);
    const r = checkRecord(parsed ?? parseStrictJson(text, { where, maxDepth: 4 }), where, this.version);
    if (this.phase === 'done') throw new BrickpostError('MALFORMED', `${where}: data after the end record`);
    if (this.phase === 'header') {
      if (r.t !== 'shipment') throw new BrickpostError('MALFORMED', `${where}: first record must be the shipment header, found ${quote(r.t)}`);
      this.header = r;
      this.version = manifestVersion(r.format)!;
      this.relative = r.bases.length > 0 || r.against !== null;
      if (r.bases.some(([, seq]) => seq >= r.seq))
        throw new BrickpostError('MALFORMED', `${where}: a base's sequence number is not below the shipment's ${r.seq}`);
      this.phase = 'tree';
      return r;
    }
    if (r.t !== 'more') this.closeFile(where);
    switch (r.t) {
      case 'shipment':
        throw new BrickpostError('MALFORMED', `${where}: second shipment header`);
      case 'dir':
      case 'file':
      case 'link':
      case 'hard':
      case 'special':
        if (this.phase !== 'tree') throw new BrickpostError('MALFORMED', `${where}: tree entry after the pack index`);
        this.entry(r, where);
        return r;
      case 'more':
        if (!this.file) throw new BrickpostError('MALFORMED', `${where}: continuation without a file record before it`);
        this.chunks(r.c, where);
        return r;
      case 'pack':
        this.phase = 'packs';
        this.pack(r, where);
        return r;
      case 'end':
        this.finishWith(r, where);
        return r;
    }
  }

  /**
   * Checks that the manifest ended properly.
   * @throws BrickpostError TRUNCATED
   */
  finish(): EndRecord {
    if (!this.end) throw new BrickpostError('TRUNCATED', `${this.where}: ends after line ${this.line} without an end record`);
    return this.end;
  }

  private entry(r: EntryRecord, where: string): void {
    const name = checkPathName(r.p, where, this.version);
    // Names hold no slash: the parent is what comes before the last one.
    const parent = name.length === r.p.length ? '' : r.p.slice(0, r.p.length - name.length - 1);
    while (this.stack.length > 1 && this.stack[this.stack.length - 1]!.path !== parent) this.closeLevel(this.stack.pop()!);
    const top = this.stack[this.stack.length - 1]!;
    const key = foldKey(name);
    if (parent === '' && key === RESERVED_ROOT_NAME) {
      throw new BrickpostError('UNSAFE_PATH', `${where}: ${quote(r.p)} is reserved for a destination's state folder`);
    }
    if (top.path !== parent) {
      throw new BrickpostError('MALFORMED', `${where}: entry ${quote(r.p)} comes before or without its parent directory`);
    }
    if (top.last !== null) {
      if (top.lastKey === key && (this.version === 1 || top.last === name)) {
        throw new BrickpostError(
          'UNSAFE_PATH',
          `${where}: ${quote(r.p)} collides with ${quote(top.last)} on case-insensitive file systems (or is a duplicate)`,
        );
      }
      if (compareFolded(top.lastKey, top.last, key, name) >= 0) {
        throw new BrickpostError('MALFORMED', `${where}: entry ${quote(r.p)} is out of order`);
      }
      if (top.lastKey === key) {
        top.group ??= [top.last];
        if (top.group.length < MAX_COLLISION_NAMES) top.group.push(name);
      } else this.closeGroup(top);
    }
    top.last = name;
    top.lastKey = key;
    const t = this.totals;
    if (t.dirs + t.files + t.links + t.hard + t.specials >= (this.expect.entries ?? Infinity)) {
      throw new BrickpostError('LIMIT_EXCEEDED', `${where}: more entries than the ${this.expect.entries} the signed bag-info declares`);
    }
    switch (r.t) {
      case 'dir':
        t.dirs++;
        this.stack.push({ path: r.p, last: null, lastKey: '', group: null });
        break;
      case 'file':
        t.files++;
        t.bytes += r.size;
        if (t.bytes > (this.expect.bytes ?? Infinity)) {
          throw new BrickpostError(
            'LIMIT_EXCEEDED',
            `${where}: the files up to ${quote(r.p)} hold more than the ${this.expect.bytes} bytes the signed bag-info declares (Brickpost-Bytes)`,
          );
        }
        this.file = { path: r.p, size: r.size, seen: 0, basis: r.b !== undefined, hole: false };
        if (r.b) {
          if (!this.relative) throw new BrickpostError('MALFORMED', `${where}: ${quote(r.p)} has a delta basis but the shipment names no base`);
          checkPath(r.b[0], `${where}: basis (field b) of ${quote(r.p)}`, this.version);
        }
        this.chunks(r.c, where);
        break;
      case 'link':
        t.links++;
        break;
      case 'hard':
        t.hard++;
        checkPath(r.to, `${where}: target (field to) of hard link ${quote(r.p)}`, 2);
        // Bounded memory: order is checked here; that `to` is a file record is checked where it is looked up.
        if (comparePaths(r.to, r.p) >= 0)
          throw new BrickpostError('MALFORMED', `${where}: hard link ${quote(r.p)} names ${quote(r.to)}, which is not an earlier entry`);
        break;
      case 'special':
        t.specials++;
        break;
    }
  }

  /** A folder's listing ended: its last group of colliding names is complete. */
  private closeLevel(level: Level): void {
    this.closeGroup(level);
  }

  private closeGroup(level: Level): void {
    if (!level.group) return;
    this.collisionCount++;
    if (this.collisions.length < MAX_COLLISIONS) this.collisions.push({ parent: level.path, names: level.group });
    level.group = null;
  }

  private chunks(c: ChunkRef[], where: string): void {
    const f = this.file!;
    for (const ref of c) {
      const len = refLength(ref);
      if (len === 0) throw new BrickpostError('MALFORMED', `${where}: empty chunk in ${quote(f.path)}`);
      f.seen += len;
      if (ref.length === 1) {
        if (f.hole) throw new BrickpostError('MALFORMED', `${where}: two holes in a row in ${quote(f.path)} (writers merge them)`);
        f.hole = true;
        continue;
      }
      f.hole = false;
      if (ref.length === 2) {
        if (!this.relative)
          throw new BrickpostError('MALFORMED', `${where}: ${quote(f.path)} refers to a chunk the destination holds, but the shipment names no base`);
        continue;
      }
      if (ref.length === 6) {
        if (!f.basis) throw new BrickpostError('MALFORMED', `${where}: ${quote(f.path)} has a delta chunk but no basis (field b)`);
        if (ref[5] === 0) throw new BrickpostError('MALFORMED', `${where}: empty delta in ${quote(f.path)}`);
      }
      if (ref[3] < MIN_FRAME_LENGTH)
        throw new BrickpostError('MALFORMED', `${where}: chunk of ${quote(f.path)} has a ${ref[3]}-byte frame, shorter than any zstd frame`);
      if (this.expect.packs !== undefined && ref[1] >= this.expect.packs) {
        throw new BrickpostError('MALFORMED', `${where}: chunk in pack ${ref[1]} but the shipment has ${this.expect.packs} packs`);
      }
    }
    this.totals.chunks += c.reduce((n, ref) => n + (ref.length === 1 ? 0 : 1), 0);
    if (f.seen > f.size) throw new BrickpostError('MALFORMED', `${where}: chunks of ${quote(f.path)} add up to more than its size ${f.size}`);
  }

  private closeFile(where: string): void {
    const f = this.file;
    if (!f) return;
    if (f.seen !== f.size) throw new BrickpostError('MALFORMED', `${where}: chunks of ${quote(f.path)} add up to ${f.seen} bytes, not its size ${f.size}`);
    this.file = null;
  }

  private pack(r: PackRecord, where: string): void {
    if (this.expect.packs !== undefined && r.i >= this.expect.packs) {
      throw new BrickpostError('MALFORMED', `${where}: pack ${r.i} listed, the signed bag-info declares ${this.expect.packs} packs`);
    }
    if (r.i !== this.packsSeen) throw new BrickpostError('MALFORMED', `${where}: pack ${r.i} listed out of order (expected ${this.packsSeen})`);
    if (r.path !== packPath(r.i)) throw new BrickpostError('MALFORMED', `${where}: pack ${r.i} has path ${quote(r.path)}, expected ${packPath(r.i)}`);
    this.packsSeen++;
    this.totals.packs++;
  }

  private finishWith(r: EndRecord, where: string): void {
    const t = this.totals;
    const counts =
      this.version === 2
        ? (['dirs', 'files', 'links', 'hard', 'specials', 'bytes', 'chunks', 'packs'] as const)
        : (['dirs', 'files', 'bytes', 'chunks', 'packs'] as const);
    for (const k of counts) {
      if (r[k] !== t[k]) throw new BrickpostError('MALFORMED', `${where}: end record says ${r[k]} ${k}, the manifest has ${t[k]}`);
    }
    while (this.stack.length > 0) this.closeLevel(this.stack.pop()!);
    if (this.expect.packs !== undefined && t.packs !== this.expect.packs) {
      throw new BrickpostError('MALFORMED', `${where}: manifest lists ${t.packs} packs, the signed bag-info declares ${this.expect.packs}`);
    }
    this.end = r;
    this.phase = 'done';
  }
}

/** One open folder of the reader's stack. */
interface Level {
  path: string;
  last: string | null;
  lastKey: string;
  /** Children so far that share the last child's fold key (two or more), or null. */
  group: string[] | null;
}

/** The shortest zstd frame: magic, frame header, one block header. */
export const MIN_FRAME_LENGTH = 9;

/** The top-level name a destination keeps its state under; never an entry (compared by fold key). */
export const RESERVED_ROOT_NAME = '.brickpost';

/** Packs per directory under data/packs/ (FORMAT.md §layout). */
export const PACKS_PER_DIR = 1000;

/** Bag-relative path of pack `i`: data/packs/DDD/PPPPPP.age. */
export function packPath(i: number): string {
  return numberedPath('data/packs', i, 'age');
}

/**
 * Bag path of file `i` of a numbered series (packs, parity files, recovery
 * files, FORMAT.md §3.2): `DIR/DDD/NNNNNN.EXT`, a folder per 1000 files.
 */
export function numberedPath(dir: string, i: number, ext: string): string {
  return `${dir}/${String(Math.floor(i / PACKS_PER_DIR)).padStart(3, '0')}/${String(i).padStart(6, '0')}.${ext}`;
}

/** Bag-relative path of the manifest. */
export const MANIFEST_PATH = 'data/manifest.age';
