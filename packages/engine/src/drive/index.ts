/**
 * Drives: the shipment folders on a drive (FORMAT.md §layout).
 *
 * - *bag*: DRIVE/brickpost/<shipment-id>/, one BagIt bag per shipment;
 *   `.part` while it is written (layout.ts).
 * - *payload*: the files under data/ (manifest, packs, parity, set file,
 *   recovery files), each listed with its SHA-256 in the signed payload
 *   manifest; *tag files*: bag-info.txt, the manifests, the signature
 *   (seal.ts). Every read of drive data is bounded by what is signed
 *   (payload-bound.ts, read-limited.ts).
 * - *opening*: finding a shipment on a drive and checking its signature
 *   and tag files before anything else is read (open.ts).
 * - *drive set*: the drives of one shipment, k data and m parity; missing
 *   data drives are *rebuilt* from any k (set.ts, rebuild.ts).
 * - *repair*: damaged blocks rewritten from the drive's own recovery data
 *   (repair.ts).
 *
 * No re-exports: the engine imports each file where it needs it.
 */
export {};
