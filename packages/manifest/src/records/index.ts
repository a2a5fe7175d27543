/**
 * Manifest records: the encrypted, streamable description of a shipment.
 *
 * - record: one JSON object on one line (NDJSON), parsed with strict JSON.
 * - entry: a `dir` or `file` record; a file lists its chunks as chunk refs.
 * - chunk ref: where a chunk's frame is in which pack, and its keyed id.
 * - manifest order: depth-first, siblings ascending by fold key then bytes.
 * - path grammar: the rules every entry path must satisfy (v1: portable
 *   names only; v2: any byte-string name).
 * - byte string: a name or link target as bytes, which need not be UTF-8.
 */
export * from './bytes.js';
export * from './json.js';
export * from './fields.js';
export * from './path.js';
export * from './types.js';
export * from './schema.js';
export * from './reader.js';
export * from './writer.js';
