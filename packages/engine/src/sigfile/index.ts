/**
 * Signature and request files (FORMAT.md §signature-file): what a
 * subscriber's folder holds, sent to the publisher so that it can ship only
 * what is missing.
 *
 * - signature file: every file of a folder with its chunks, cut as pack cuts
 *   them, each named by its SHA-256 or its keyed chunk id; kind 'signature'.
 * - request file: the same, written after a shipment was refused because the
 *   destination could not produce chunks it was meant to hold; kind
 *   'request', with `missing` records naming what was lacking.
 * - header: the first record: kind, ids, the dataset and the last shipment
 *   applied (when the folder is a destination), the subscriber's key id and
 *   recipient.
 * - detached signature: FILE.minisig, the subscriber's minisign signature of
 *   FILE (also used for receipts).
 */
export { SIGNATURE_FORMAT, checkHeader, checkSigRecord, sigTrustedComment } from './records.js';
export type { SigHeader, SigRecord, SigChunk, SigFileRecord, SigMoreRecord, SigMissingRecord, SigEndRecord } from './records.js';
export { SignatureFileWriter, type SignatureFileTotals } from './writer.js';
export { openSignatureFile, type OpenedSignatureFile } from './reader.js';
export { scanFolder, type ScannedFile, type ScanFolderOptions } from './scan.js';
export { hashFile, minisigPath, signDetached, verifyDetached, type Signer, type Verifier } from './detached.js';
