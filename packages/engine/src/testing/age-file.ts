import { age } from '@brickpost/manifest';

/**
 * A whole age file (age spec §header, §payload) encrypting `plain` to the
 * recipients (`age1…` strings), built from the same createHeader and
 * PayloadEncryptor the pack and manifest writers use.
 * @throws BrickpostError USAGE (no recipient), BAD_KEY (unparsable recipient)
 */
export function ageEncrypt(plain: Buffer, recipients: string[]): Buffer {
  const { header, fileKey } = age.createHeader(recipients.map((r) => age.parseRecipient(r)));
  const enc = new age.PayloadEncryptor(fileKey);
  return Buffer.concat([header, enc.nonce, ...enc.update(plain), ...enc.final()]);
}

/**
 * Where an age file's payload starts (after the header and the 16-byte
 * nonce), and where its header MAC is (the base64 after `--- `).
 * @throws BrickpostError MALFORMED when `file` does not start with an age header.
 */
export function ageLayout(file: Buffer): { payloadStart: number; macStart: number; macEnd: number } {
  const parsed = age.parseHeader(file.subarray(0, Math.min(file.length, age.MAX_HEADER_BYTES)));
  const macEnd = parsed.headerLength - 1;
  const macStart = file.lastIndexOf('--- ', macEnd, 'latin1') + 4;
  return { payloadStart: age.payloadOffset(parsed.headerLength), macStart, macEnd };
}
