import { ManifestReader } from './reader.js';
import { recordToJson } from './schema.js';
import { manifestVersion, type ManifestRecord } from './types.js';

/**
 * Turns records into manifest lines, checking each with the same
 * ManifestReader a receiver uses, so the publisher cannot write a manifest
 * the receiver would refuse. The first record, the shipment header, sets
 * the format (v1 or v2) of the lines after it.
 */
export class ManifestWriter {
  private readonly check = new ManifestReader('manifest being written');
  private version: 1 | 2 = 1;

  /**
   * Encodes one record as a line (with its newline).
   * @throws BrickpostError when the record breaks a manifest rule.
   */
  line(record: ManifestRecord): string {
    if (record.t === 'shipment') this.version = manifestVersion(record.format) ?? 1;
    const value = recordToJson(record, this.version);
    const text = JSON.stringify(value);
    this.check.pushWritten(text, value);
    return text + '\n';
  }

  get totals(): ManifestReader['totals'] {
    return this.check.totals;
  }

  /** Name collisions among the records written (v2; see ManifestReader). */
  get collisions(): ManifestReader['collisions'] {
    return this.check.collisions;
  }
}
