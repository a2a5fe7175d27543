/**
 * The custody log (FORMAT.md §custody): a hash-chained, signed record of
 * every handling step of a shipment on one drive.
 *
 * Terms:
 * - event: one handling step (packed, sealed, verified, ingested,
 *   receipt-issued, wiped), one line of strict JSON signed by its actor.
 * - actor: the party that acted, named by its minisign key; publisher
 *   events (packed, sealed) are by the key that signs the bag.
 * - chain: each event's `prev` is the SHA-256 of the line before, so
 *   removing, reordering or altering one breaks the chain at that event.
 * - log: the version line `brickpost-custody/v1`, then the events; in the
 *   bag as the tag file custody.ndjson (publisher events), and next to the
 *   bag as `brickpost/<id>.custody` (the whole chain).
 */
export * from './event.js';
export * from './log.js';
