import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { BrickpostError, isBrickpostError, minisign, quote } from '@brickpost/manifest';
import { readLimited } from '../io/read-limited.js';
import { toEnvironmentError } from '../io/errors.js';
import { writeAtomic } from '../io/sync.js';

/**
 * Detached minisign signatures of the files a subscriber sends its
 * publisher (signature and request files, receipts): FILE is signed in
 * FILE.minisig, prehashed ("ED"), so `minisign -Vm FILE -p KEY.pub` checks it.
 */

/** Where the signature of `file` is. */
export function minisigPath(file: string): string {
  return `${file}.minisig`;
}

/** A key the verifier accepts, as keys/trustedVerifiers gives them. */
export interface Verifier {
  keyId: Buffer;
  publicKey: Buffer;
  name: string;
}

/** Who signed a file, once the signature has verified. */
export interface Signer {
  keyId: string;
  name: string | null;
  trustedComment: string;
}

const BLOCK = 1 << 20;

/**
 * SHA-256 (hex) and BLAKE2b-512 (minisign's prehash) of a file, in one pass.
 * @throws BrickpostError NOT_FOUND, PERMISSION, IO
 */
export async function hashFile(path: string): Promise<{ sha256: string; prehash: Buffer; size: number }> {
  const sha = createHash('sha256');
  const pre = minisign.createPrehash();
  let size = 0;
  const fh = await open(path, 'r').catch((e: unknown) => {
    throw toEnvironmentError(e, 'cannot open');
  });
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, BLOCK, null);
      if (bytesRead === 0) break;
      sha.update(buf.subarray(0, bytesRead));
      pre.update(buf.subarray(0, bytesRead));
      size += bytesRead;
    }
  } catch (e) {
    throw toEnvironmentError(e, `cannot read ${path}`);
  } finally {
    await fh.close();
  }
  return { sha256: sha.digest('hex'), prehash: pre.digest(), size };
}

/**
 * Writes FILE.minisig for a file whose BLAKE2b-512 is `prehash`, atomically.
 * @throws BrickpostError NO_SPACE, PERMISSION, IO
 */
export async function signDetached(file: string, prehash: Buffer, key: minisign.SigningKey, trustedComment: string, untrustedComment: string): Promise<void> {
  const text = minisign.signPrehashed(prehash, key, trustedComment, untrustedComment);
  await writeAtomic(minisigPath(file), text);
}

/**
 * Checks FILE.minisig over a file whose BLAKE2b-512 is `prehash` against
 * trusted keys, then that its trusted comment is `expectedComment` (when
 * given) and that the signer is `expectedSigner` (a key id, when given).
 * @throws BrickpostError UNSIGNED (no .minisig), UNTRUSTED_PUBLISHER (key not trusted), SIGNATURE_INVALID (anything else)
 */
export async function verifyDetached(
  file: string,
  prehash: Buffer,
  verifiers: ReadonlyArray<Verifier>,
  what: string,
  expect: { comment?: (signerKeyId: string) => string; signer?: string } = {},
): Promise<Signer> {
  const sigPath = minisigPath(file);
  let text: Buffer;
  try {
    text = await readLimited(sigPath, minisign.MAX_SIGNATURE_FILE_BYTES, 'signature');
  } catch (e) {
    if (isBrickpostError(e, 'FILE_MISSING')) {
      throw new BrickpostError('UNSIGNED', `${what} ${quote(file)} is not signed: ${quote(sigPath)} is missing`, {
        path: sigPath,
        hint: 'copy the .minisig file that came with it next to it',
      });
    }
    if (isBrickpostError(e, 'LIMIT_EXCEEDED') || isBrickpostError(e, 'MALFORMED')) {
      throw new BrickpostError('SIGNATURE_INVALID', `signature of ${what} ${quote(file)} is invalid: ${e.message}`, { path: sigPath, cause: e });
    }
    throw e;
  }
  let v: minisign.VerifiedSignature;
  try {
    v = minisign.verifySignature(text, { prehash }, verifiers);
  } catch (e) {
    if (isBrickpostError(e, 'UNTRUSTED_PUBLISHER')) {
      throw new BrickpostError('UNTRUSTED_PUBLISHER', `${what} ${quote(file)} is signed by key ${keyIdOf(text)}, which this home does not trust`, {
        path: sigPath,
        hint: "if you know its owner, run 'brickpost trust add' with their public key (RW…) first",
        cause: e,
      });
    }
    if (isBrickpostError(e))
      throw new BrickpostError('SIGNATURE_INVALID', `signature of ${what} ${quote(file)} is invalid: ${e.message}`, { path: sigPath, cause: e });
    throw e;
  }
  if (expect.signer !== undefined && v.keyIdHex !== expect.signer) {
    throw new BrickpostError('SIGNATURE_INVALID', `${what} ${quote(file)} names key ${quote(expect.signer)} but is signed by ${v.keyIdHex}`, { path: sigPath });
  }
  if (expect.comment !== undefined && v.trustedComment !== expect.comment(v.keyIdHex)) {
    throw new BrickpostError('SIGNATURE_INVALID', `signed comment ${quote(v.trustedComment)} does not describe ${what} ${quote(file)}`, { path: sigPath });
  }
  const name = verifiers.find((k) => minisign.keyIdHex(k.keyId) === v.keyIdHex)?.name ?? null;
  return { keyId: v.keyIdHex, name, trustedComment: v.trustedComment };
}

function keyIdOf(sigText: Buffer): string {
  try {
    return minisign.parseSignature(sigText).keyIdHex;
  } catch {
    return '?';
  }
}
