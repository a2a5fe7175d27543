import { ManifestReader } from './reader.js';
import type { ManifestRecord } from './schema.js';

/**
 * Turns records into manifest lines, checking each with the same
 * ManifestReader a receiver uses, so the publisher cannot write a manifest
 * the receiver would refuse.
 */
export class ManifestWriter {
  private readonly check = new ManifestReader('manifest being written');

  /**
   * Encodes one record as a line (with its newline).
   * @throws BrickpostError when the record breaks a manifest rule.
   */
  line(record: ManifestRecord): string {
    const text = JSON.stringify(record);
    this.check.push(text);
    return text + '\n';
  }

  get totals(): ManifestReader['totals'] {
    return this.check.totals;
  }
}
