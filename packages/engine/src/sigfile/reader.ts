import { createHash } from 'node:crypto';
import { access, open } from 'node:fs/promises';
import { BrickpostError, parseStrictJson, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { HeaderFrame } from '../io/header-frame.js';
import { inflate } from '../io/inflate.js';
import { textLines } from '../io/lines.js';
import { hashFile, minisigPath, verifyDetached, type Verifier } from './detached.js';
import { checkHeader, checkSigRecord, SIG_LIMITS, SIGNATURE_FORMAT, SigRecordOrder, sigTrustedComment, type SigHeader, type SigRecord } from './records.js';

const BLOCK = 1 << 20;

/** A signature or request file whose signature has been checked. */
export interface OpenedSignatureFile {
  header: SigHeader;
  /** SHA-256 (hex) of the file. */
  sha256: string;
  /** The subscriber who signed it, as the trust store knows them. */
  signer: { keyId: string; name: string | null };
  /**
   * The records after the header, validated one by one in bounded memory.
   * Throws at the end (TRUNCATED, MALFORMED, SIGNATURE_INVALID if the file
   * changed since it was opened), so a caller acts on what it read only
   * once the iteration has completed.
   */
  records(): AsyncIterable<SigRecord>;
}

/**
 * Opens a signature or request file (FORMAT.md §signature-file). FILE.minisig
 * is checked first, against the trusted keys, and must be by the
 * subscriber the header names with the trusted comment the header implies;
 * only then is anything in the file parsed.
 * @throws BrickpostError UNSIGNED, UNTRUSTED_PUBLISHER (hint: brickpost trust add), SIGNATURE_INVALID, MALFORMED, TRUNCATED, UNSUPPORTED_VERSION, NOT_FOUND, IO
 */
export async function openSignatureFile(path: string, verifiers: ReadonlyArray<Verifier>): Promise<OpenedSignatureFile> {
  await access(path).catch((e: unknown) => {
    throw toEnvironmentError(e, 'cannot open the signature file');
  });
  if (
    !(await access(minisigPath(path)).then(
      () => true,
      () => false,
    ))
  ) {
    throw new BrickpostError('UNSIGNED', `signature file ${quote(path)} is not signed: ${quote(minisigPath(path))} is missing`, {
      path: minisigPath(path),
      hint: 'copy the .minisig file that came with it next to it',
    });
  }
  const { sha256, prehash } = await hashFile(path);
  const signer = await verifyDetached(path, prehash, verifiers, 'signature file');
  let header: SigHeader | null = null;
  const first = readRecords(path, sha256, (h) => (header = h));
  await first.next();
  await first.return(undefined);
  if (!header) throw new BrickpostError('TRUNCATED', `signature file ${quote(path)} has no header`);
  const h: SigHeader = header;
  if (h.subscriber !== signer.keyId) {
    throw new BrickpostError('SIGNATURE_INVALID', `signature file ${quote(path)} names subscriber ${h.subscriber} but is signed by ${signer.keyId}`, {
      path: minisigPath(path),
    });
  }
  if (signer.trustedComment !== sigTrustedComment(h)) {
    throw new BrickpostError('SIGNATURE_INVALID', `signed comment ${quote(signer.trustedComment)} does not describe signature file ${quote(path)}`, {
      path: minisigPath(path),
    });
  }
  return {
    header: h,
    sha256,
    signer: { keyId: signer.keyId, name: signer.name },
    records: () =>
      readRecords(path, sha256, (again) => {
        if (JSON.stringify(again) !== JSON.stringify(h))
          throw new BrickpostError('SIGNATURE_INVALID', `signature file ${quote(path)} changed while being read`);
      }),
  };
}

/**
 * The records of a signature file after its header (given to `onHeader`),
 * checked line by line; at the end, the file's SHA-256 must be `sha256`.
 */
async function* readRecords(path: string, sha256: string, onHeader: (h: SigHeader) => void): AsyncGenerator<SigRecord> {
  const hash = createHash('sha256');
  const order = new SigRecordOrder(path);
  let line = 0;
  // Pulled end to end: nothing is decoded before the line reader asks for it.
  for await (const raw of textLines(inflate(afterHeader(path, hash), path), path, SIG_LIMITS.lineBytes)) {
    line++;
    const where = `${path} line ${line}`;
    const v = parseStrictJson(raw, { where, maxDepth: SIG_LIMITS.depth });
    if (line === 1) {
      onHeader(checkHeader(v, where));
      continue;
    }
    const r = checkSigRecord(v, where);
    order.push(r, line);
    yield r;
  }
  if (line === 0) throw new BrickpostError('TRUNCATED', `${path}: no header`);
  order.finish();
  if (hash.digest('hex') !== sha256) throw new BrickpostError('SIGNATURE_INVALID', `signature file ${quote(path)} changed while being read`);
}

/** The file's bytes after the frame that names the format, hashed as they are read. */
async function* afterHeader(path: string, hash: ReturnType<typeof createHash>): AsyncGenerator<Buffer> {
  const fh = await open(path, 'r').catch((e: unknown) => {
    throw toEnvironmentError(e, 'cannot open the signature file');
  });
  try {
    const header = new HeaderFrame(SIGNATURE_FORMAT, path);
    for (;;) {
      const buf = Buffer.allocUnsafe(BLOCK);
      const { bytesRead } = await fh.read(buf, 0, BLOCK, null).catch((e: unknown) => {
        throw toEnvironmentError(e, `cannot read ${path}`);
      });
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      hash.update(chunk);
      const p = header.take(chunk);
      if (p.length > 0) yield p;
    }
    header.end();
  } finally {
    await fh.close();
  }
}
