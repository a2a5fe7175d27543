import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { toEnvironmentError } from '../io/errors.js';
import { openDriveFile } from '../io/read-limited.js';
import {
  age,
  BrickpostError,
  entriesOf,
  MANIFEST_FORMATS,
  MANIFEST_PATH,
  ManifestReader,
  quote,
  RECORD_LIMITS,
  type ManifestExpectations,
  type ManifestRecord,
} from '@brickpost/manifest';
import type { OpenedShipment } from '../drive/open.js';
import { payloadBound } from '../drive/payload-bound.js';
import { sha256File } from '../io/sha256-file.js';
import { commandLine } from '../io/command.js';
import { inflate, type InflateLimit } from '../io/inflate.js';
import { DataBudget, manifestTextLimit } from './expansion.js';
import { textLines } from '../io/lines.js';
import { openAgeHandle } from './age-handle.js';
import { HeaderFrame } from '../io/header-frame.js';

const BLOCK = 1 << 20;

/**
 * Streams the records of a shipment's manifest, validated (ManifestReader)
 * against what the signed bag-info declares. The encrypted file's SHA-256
 * is checked against the signed payload manifest before any of it is
 * decrypted, so nothing unauthenticated is parsed. Memory is bounded by one
 * line (1 MiB) and a few blocks, however large the manifest.
 * @throws BrickpostError FIXITY_MISMATCH, NO_MATCHING_KEY, PAYLOAD_CORRUPT, TRUNCATED, MALFORMED, UNSAFE_PATH, LIMIT_EXCEEDED
 */
export async function* readManifest(s: OpenedShipment, identities: age.Identity[]): AsyncGenerator<ManifestRecord> {
  const path = s.manifestFile ?? join(s.dir, MANIFEST_PATH);
  const digest = s.manifestFile ? s.payload.get(MANIFEST_PATH) : await sha256File(path, undefined, 'the manifest', payloadBound(s, MANIFEST_PATH));
  if (digest !== s.payload.get(MANIFEST_PATH)) {
    throw new BrickpostError('FIXITY_MISMATCH', `${MANIFEST_PATH} does not match its SHA-256 in the signed payload manifest`, {
      path,
      hint: 'the drive was damaged or modified',
    });
  }
  const budget = s.maxExpansion !== undefined ? new DataBudget(s, s.maxExpansion) : null;
  const text = s.maxExpansion !== undefined ? manifestTextLimit(s.maxExpansion, (await stat(path)).size) : undefined;
  let line = 0;
  let file = '';
  const i = s.info;
  try {
    for await (const r of readManifestFile(path, identities, {
      where: MANIFEST_PATH,
      expect: { entries: i.entries, packs: i.packs, bytes: i.bytes },
      ...(text ? { text } : {}),
      checked: s.manifestFile !== undefined && s.manifestChecked === true,
    })) {
      if (++line === 1) checkHeader(s, r);
      if (r.t === 'file') file = r.p;
      if (budget && (r.t === 'file' || r.t === 'more')) budget.add(r.c, line, file);
      if (r.t === 'end' && (r.files !== i.files || r.bytes !== i.bytes || entriesOf(r) !== i.entries)) {
        throw new BrickpostError(
          'MALFORMED',
          `${MANIFEST_PATH}: holds ${r.files} files, ${entriesOf(r)} entries, ${r.bytes} bytes; the signed bag-info declares ${i.files} files, ${i.entries} entries, ${i.bytes} bytes`,
        );
      }
      yield r;
    }
  } catch (e) {
    throw withDriveHint(e, s);
  }
}

/**
 * A refusal of what the manifest holds, with what to do: it matched its
 * signed SHA-256, so the publisher's software wrote it so (or the
 * publisher's key made a hostile drive).
 */
function withDriveHint(e: unknown, s: OpenedShipment): unknown {
  if (!(e instanceof BrickpostError) || e.hint !== undefined || !['integrity', 'unsafe'].includes(e.category)) return e;
  return new BrickpostError(e.code, e.message, {
    cause: e,
    path: e.path ?? join(s.dir, MANIFEST_PATH),
    hint: `the manifest matches its signed SHA-256, so it was made this way: do not use this shipment, and ask its publisher for a new drive (${commandLine(['verify', '--deep', s.dir])} lists every problem)`,
  });
}

/**
 * Streams the validated records of an encrypted manifest file that was
 * checked before (a destination keeps the manifest of each shipment it
 * applied, DEST/.brickpost/manifests/ID.age): decrypt, decompress, validate
 * line by line in bounded memory.
 * @throws BrickpostError NO_MATCHING_KEY, PAYLOAD_CORRUPT, TRUNCATED, MALFORMED, UNSAFE_PATH, LIMIT_EXCEEDED, IO
 */
export async function* readManifestFile(
  path: string,
  identities: age.Identity[],
  opts: { where?: string; expect?: ManifestExpectations; text?: InflateLimit; checked?: boolean } = {},
): AsyncGenerator<ManifestRecord> {
  const where = opts.where ?? path;
  const reader = new ManifestReader(where, opts.expect ?? {});
  // The plaintext opens with a skippable frame naming the format; the header record must name the same.
  const header = new HeaderFrame(MANIFEST_FORMATS, where);
  // Pulled end to end: nothing is decrypted or decoded before the line reader asks for it.
  for await (const line of textLines(inflate(plaintext(path, identities, where, header), where, opts.text), where, RECORD_LIMITS.lineBytes)) {
    // Bytes the strict parser accepted whole before parse the same with JSON.parse; the record checks still run.
    const r = opts.checked === true ? reader.pushWritten(line) : reader.push(line);
    if (r.t === 'shipment' && r.format !== header.seen) {
      throw new BrickpostError('MALFORMED', `${where}: the header record says ${quote(r.format)}, the header frame ${quote(header.seen ?? '')}`);
    }
    yield r;
  }
  reader.finish();
}

function checkHeader(s: OpenedShipment, r: ManifestRecord): void {
  if (r.t !== 'shipment') return;
  const i = s.info;
  const same =
    r.shipment === i.shipment &&
    r.datasetId === i.datasetId &&
    r.seq === i.seq &&
    r.parent === i.parent &&
    r.publisher === i.publisherKey &&
    r.dataset === i.dataset;
  if (!same) throw new BrickpostError('MALFORMED', `${MANIFEST_PATH}: header does not match the signed bag-info (shipment ${quote(r.shipment)}, seq ${r.seq})`);
}

/** The manifest's plaintext after its header frame, a STREAM chunk at a time, decrypted as it is asked for. */
async function* plaintext(path: string, identities: age.Identity[], where: string, header: HeaderFrame): AsyncGenerator<Buffer> {
  const fh = await openDriveFile(path, where);
  try {
    const { size, fileKey, nonce, payloadStart: start } = await openAgeHandle(fh, where, identities, path);
    const dec = new age.PayloadDecryptor(fileKey, nonce);
    for (let pos = start; pos < size;) {
      const buf = Buffer.allocUnsafe(Math.min(BLOCK, size - pos));
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos).catch((e: unknown) => {
        throw toEnvironmentError(e, `cannot read ${where}`, { path });
      });
      if (bytesRead === 0) throw new BrickpostError('TRUNCATED', `${where} shrank while being read`);
      pos += bytesRead;
      for (const piece of dec.update(buf.subarray(0, bytesRead))) {
        const p = header.take(piece);
        if (p.length > 0) yield p;
      }
    }
    for (const piece of dec.final()) {
      const p = header.take(piece);
      if (p.length > 0) yield p;
    }
    header.end();
  } finally {
    await fh.close();
  }
}
