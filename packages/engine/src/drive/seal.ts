import { createHash } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { bagit, formatSpec, MANIFEST_PATH, minisign, quote, shipmentInfoFields, trustedComment, type ShipmentInfo } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { CUSTODY_TAG_FILE, SIGNATURE_FILE, TAG_FILES, TAG_MANIFEST } from './layout.js';
import { driveReadme } from './readme.js';

/** What the sealed event vouches for: SHA-256 (hex) of the bag's files as sealed. */
export interface SealDigests {
  manifest: string;
  payloadManifest: string;
  bagInfo: string;
}

/**
 * Completes a bag whose payload is written: the BagIt tag files, the plain
 * README and the format spec, with `custody` the publisher's custody events
 * (the text it returns for the bag's digests),
 * the tag manifest over all of them, and the
 * publisher's minisign signature of the tag manifest. Everything is fsynced.
 * @throws BrickpostError NO_SPACE, PERMISSION, IO
 */
export async function sealBag(
  dir: string,
  info: ShipmentInfo,
  payload: Array<{ path: string; digest: string }>,
  key: minisign.SigningKey,
  opts: { custody?: (digests: SealDigests) => string } = {},
): Promise<void> {
  const files: Record<(typeof TAG_FILES)[number], string> = {
    'bagit.txt': bagit.BAGIT_TXT,
    'bag-info.txt': bagit.formatBagInfo(shipmentInfoFields(info)),
    'manifest-sha256.txt': bagit.formatManifest(payload),
    'README.txt': driveReadme(info),
    'FORMAT.md': formatSpec(),
  };
  const tags: Array<{ path: string; digest: string }> = [];
  for (const name of TAG_FILES) {
    await writeSynced(join(dir, name), files[name]);
    tags.push({ path: name, digest: createHash('sha256').update(files[name], 'utf8').digest('hex') });
  }
  if (opts.custody) {
    // The publisher's custody events (FORMAT.md §custody), covered by the signature through the tag manifest.
    const digest = (name: string): string => tags.find((t) => t.path === name)!.digest;
    const log = opts.custody({
      manifest: payload.find((p) => p.path === MANIFEST_PATH)!.digest,
      payloadManifest: digest('manifest-sha256.txt'),
      bagInfo: digest('bag-info.txt'),
    });
    await writeSynced(join(dir, CUSTODY_TAG_FILE), log);
    tags.push({ path: CUSTODY_TAG_FILE, digest: createHash('sha256').update(log, 'utf8').digest('hex') });
  }
  const tagManifest = bagit.formatManifest(tags);
  await writeSynced(join(dir, TAG_MANIFEST), tagManifest);
  const sig = minisign.signBuffer(Buffer.from(tagManifest, 'utf8'), key, trustedComment(info), `brickpost shipment ${info.shipment} signature`);
  await writeSynced(join(dir, SIGNATURE_FILE), sig);
}

async function writeSynced(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text, { flag: 'wx', mode: 0o644 });
    const fh = await open(file, 'r');
    await fh.sync();
    await fh.close();
  } catch (e) {
    throw toEnvironmentError(e, `cannot write tag file ${quote(basename(file))}`, { on: 'drive', path: file });
  }
}
