import type { SerializedError } from '../chunk/messages.js';

/** What a pack reader thread is started with. */
export interface ReaderInit {
  bag: string;
  shipment: string;
  /** The age identity file's text (identities are parsed in the thread). */
  identityText: string;
  /** The chunk id key. */
  key: Uint8Array;
}

/** [offset, frame length, length, id hex] of one chunk in a pack. */
export type ReaderRef = [number, number, number, string];

export type ReaderRequest =
  | { seq: number; op: 'read'; pack: number; refs: ReaderRef[] }
  | { seq: number; op: 'finish'; pack: number; sha256: string }
  | { seq: number; op: 'close' };

export type ReaderReply =
  | { seq: number; ok: true; chunks: Uint8Array[]; plain?: number }
  | { seq: number; ok: false; error: SerializedError };
