/**
 * Packing: a source folder into one new shipment on a drive or a drive set
 * (pack.ts).
 *
 * - *shipment*: one packed state of a *dataset* (a named series of
 *   shipments of one publisher), a BagIt bag per drive, sealed and signed.
 * - *pack*: a file of the shipment holding chunk frames in dataset order,
 *   age-encrypted, about PACK_TARGET bytes of plaintext (pack-writer.ts);
 *   the *store* (store.ts) decides which chunk goes where, or that it is a
 *   duplicate, *held* or a *delta*.
 * - *chain*: where the shipment goes among the dataset's (FORMAT.md §10.4):
 *   its *bases* are the states its recipients may hold (chain.ts); a
 *   shipment with none is *self-contained*. *against*: built instead
 *   against what a subscriber's signature or request file lists.
 * - *held* chunk: one every base tree (or the file given with --against)
 *   holds, named by a held ref instead of carried (held.ts).
 * - *tree*: the files of a published shipment as the catalog keeps them:
 *   the *stat cache* (unchanged files are not read) and the *basis* of a
 *   changed file, against which its chunks travel as deltas (tree.ts).
 * - *drive set*: k data drives and m parity drives; any k rebuild the
 *   shipment (set-writer.ts, parity-out.ts).
 * - *sealing*: the shipment written and signed on every drive, still under
 *   its `.part` name; *sealed* once every bag is in place (sealing.ts). An
 *   *interrupted* shipment is continued by `pack --resume` (resume.ts).
 *
 * No re-exports: the engine imports each file where it needs it.
 */
export {};
