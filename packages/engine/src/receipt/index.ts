/**
 * Receipts (FORMAT.md §receipt): a subscriber's signed statement of what a
 * destination holds, imported by the publisher so it knows which shipment
 * each recipient is at and can ship only what they lack.
 *
 * - receipt: a small JSON document, `brickpost-receipt/v1`: dataset,
 *   subscriber (name, key id, recipient), the shipments applied, the current
 *   one, how the destination was checked against it and the result, and the
 *   SHA-256 of the current shipment's kept manifest (state digest).
 * - check levels: 'stat' compares every entry's type, size and mtime with the
 *   current shipment's manifest; 'deep' also re-reads every file and checks
 *   each chunk's keyed id.
 * - import: on the publisher, the receipt's signature is checked against the
 *   trust store and it is recorded in the catalog (table receipts).
 */
export { RECEIPT_FORMAT, RECEIPT_LIMITS, parseReceipt, formatReceipt, receiptTrustedComment } from './schema.js';
export { checkDest, MTIME_SLACK_NS } from './check-dest.js';
export { writeReceipt } from './write.js';
export { importReceipt } from './import.js';
