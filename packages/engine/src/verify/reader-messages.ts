import { BrickpostError } from '@brickpost/manifest';
import type { SerializedError } from '../chunk/messages.js';

/** What a pack reader thread is started with. */
export interface ReaderInit {
  bag: string;
  /** For a drive set: the bag folder of each pack (an index into `bags`); else every pack is in `bag`. */
  packDirs?: { bags: string[]; of: Uint16Array };
  /** Packs read only at the offsets asked for (damaged ones): never front to back. */
  random?: number[];
  shipment: string;
  /** The age identity file's text (identities are parsed in the thread). */
  identityText: string;
  /** The chunk id key. */
  key: Uint8Array;
}

/**
 * One frame to read from a pack: [offset, frame length, length, id hex] of a
 * chunk, decoded and checked against its id; or, with kind `'delta'`, the
 * frame of a delta ref whose third element is its deltaLength: decoded to
 * exactly that many bytes (at most RECORD_LIMITS.maxDeltaLength) and
 * returned without an id check (the id is that of the chunk the delta
 * rebuilds, checked once it is applied).
 */
export type ReaderRef = [number, number, number, string] | [number, number, number, string, 'delta'];

export type ReaderRequest =
  { seq: number; op: 'read'; pack: number; refs: ReaderRef[] } | { seq: number; op: 'finish'; pack: number; sha256: string } | { seq: number; op: 'close' };

export type ReaderReply = { seq: number; ok: true; chunks: Uint8Array[]; plain?: number } | { seq: number; ok: false; error: SerializedError };

/**
 * A pack reader's failure at one ref of a read: `ref` is its index in the
 * refs asked for, so the walk can name the manifest entry it belongs to.
 */
export class RefError extends BrickpostError {
  constructor(
    readonly ref: number,
    e: BrickpostError,
  ) {
    super(e.code, e.message, { cause: e.cause ?? e, ...(e.hint !== undefined ? { hint: e.hint } : {}), ...(e.path !== undefined ? { path: e.path } : {}) });
  }
}
