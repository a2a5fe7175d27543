/**
 * Verifying: checking a shipment on a drive (verify.ts).
 *
 * - *level 1* (keyless): the publisher's signature against the trust
 *   store, the tag files, and *fixity*: every payload file present with its
 *   SHA-256, nothing else under data/ (fixity.ts).
 * - *level 2* (`deep`, needs this home's age identity): the manifest is
 *   decrypted and streamed (manifest-stream.ts), every pack read,
 *   decrypted and every chunk decoded and checked against its keyed id
 *   (readers.ts, pack-cursor.ts, walk-shipment.ts).
 * - *damage*: the plaintext ranges of packs that cannot be read, and the
 *   files they belong to (damage.ts, blame.ts).
 * - *expansion*: the bound on how far a shipment's data may expand
 *   (expansion.ts); *created*: the signed creation time in words
 *   (created.ts).
 * - *listing*: a shipment's entries in manifest order, streaming (list.ts).
 *
 * No re-exports: the engine imports each file where it needs it.
 */
export {};
