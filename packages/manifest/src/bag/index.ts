/**
 * BagIt (RFC 8493): the text formats of the tag files that make a shipment
 * folder a bag, so archivists' tools check its fixity without any key. No
 * directory walking here; the drive writer and verifier decide what to list.
 *
 * Terms:
 * - bag: a base directory holding bagit.txt, manifest-sha256.txt, data/ and
 *   optional tag files (bag-info.txt, tagmanifest-sha256.txt, others).
 * - payload: the files under data/, listed by the payload manifest.
 * - tag file: any other file in the bag; a tag manifest lists tag files.
 * - Payload-Oxum: "bytes.count" of the payload, a quick completeness check.
 * - bag path: a manifest path, relative to the base directory, "/"-separated,
 *   with CR, LF and "%" percent-encoded.
 */

export { BAGIT_TXT, parseBagitTxt, type BagDeclaration } from './declaration.js';
export { formatBagInfo, parseBagInfo, MAX_BAG_INFO_BYTES, MAX_BAG_INFO_FIELDS } from './info.js';
export { payloadOxum, parsePayloadOxum } from './oxum.js';
export { formatManifest, parseManifest, type ManifestEntry, type ManifestOptions } from './manifest.js';
export { encodeBagPath, decodeBagPath, bagPathProblem, checkBagPath, MAX_BAG_PATH_BYTES } from './path.js';
