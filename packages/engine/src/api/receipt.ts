/**
 * The engine API's types for signature files and receipts (FORMAT.md
 * §receipt): what a destination holds, described and signed by its
 * subscriber. Types only.
 */
import type { VerifyProblem } from './verify.js';

/** Options of Engine.signature. */
export interface SignatureOptions {
  /** The folder to describe: a destination, or any folder. */
  dest: string;
  /** The signature file to write; FILE.minisig is written beside it. */
  out: string;
  /** Dataset name for a folder that holds no brickpost state. */
  dataset?: string;
}

/** What `brickpost signature` wrote. */
export interface SignatureSummary {
  dest: string;
  out: string;
  /** SHA-256 (hex) of the signature file. */
  sha256: string;
  dataset: string | null;
  datasetId: string | null;
  /** The last shipment applied to the folder, when it is a destination. */
  state: { shipment: string; seq: number } | null;
  files: number;
  chunks: number;
  bytes: number;
  /** Size of the signature file in bytes. */
  fileSize: number;
  seconds: number;
  warnings: number;
}

/** Options of Engine.receipt. */
export interface ReceiptOptions {
  dest: string;
  /** The receipt file to write; FILE.minisig is written beside it. */
  out: string;
  /** Re-read every file and check each chunk's keyed id (else: type, size and mtime only). */
  deep?: boolean;
}

/** How a destination was checked against its current shipment. */
export interface ReceiptVerification {
  level: 'stat' | 'deep';
  ok: boolean;
  files: number;
  bytes: number;
  /** At most 100; paths are relative to the destination. */
  problems: VerifyProblem[];
}

/** A receipt, `brickpost-receipt/v1` (FORMAT.md §receipt): what a destination holds, signed by its subscriber. */
export interface Receipt {
  format: 'brickpost-receipt/v1';
  dataset: string;
  datasetId: string;
  /** The dataset's publisher key id. */
  publisher: string;
  subscriber: { name: string; keyId: string; recipient: string };
  applied: Array<{ shipment: string; seq: number; appliedAt: string }>;
  current: { shipment: string; seq: number };
  verification: ReceiptVerification;
  /** SHA-256 (hex) of the current shipment's encrypted manifest kept in the destination. */
  stateDigest: string;
  created: string;
}

/** What `brickpost receipt` wrote. */
export interface ReceiptSummary {
  dest: string;
  out: string;
  /** SHA-256 (hex) of the receipt file. */
  sha256: string;
  receipt: Receipt;
  seconds: number;
}

/** What `brickpost receipt import` recorded. */
export interface ReceiptImportSummary {
  file: string;
  sha256: string;
  /** True when this receipt file was imported before; nothing was changed. */
  alreadyImported: boolean;
  /** The subscriber: the name this home trusts them under, their key id and recipient. */
  subscriber: { name: string | null; keyId: string; recipient: string };
  /** True when the trust store had no recipient for the subscriber's key and now has the receipt's. */
  recipientRecorded: boolean;
  dataset: string;
  datasetId: string;
  shipment: string;
  seq: number;
  level: 'stat' | 'deep';
  ok: boolean;
  problems: number;
  created: string;
}
