import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bagit, minisign, trustedComment } from '@brickpost/manifest';
import { CUSTODY_TAG_FILE, SIGNATURE_FILE, TAG_FILES, TAG_MANIFEST } from '../drive/layout.js';

/**
 * Rewrites bag-info.txt with some fields replaced (every occurrence),
 * appended when absent, or removed (null). Values are written as given,
 * unchecked. Does not update the tag manifest (see resealTags).
 * @throws BrickpostError MALFORMED when the current bag-info.txt does not parse.
 */
export async function editBagInfo(bagDir: string, edits: Record<string, string | null>): Promise<void> {
  const file = join(bagDir, 'bag-info.txt');
  const fields = bagit.parseBagInfo(await readFile(file));
  const out: Array<[string, string]> = [];
  const done = new Set<string>();
  for (const [label, value] of fields) {
    if (!(label in edits)) out.push([label, value]);
    else if (edits[label] !== null) (out.push([label, edits[label]!]), done.add(label));
  }
  for (const [label, value] of Object.entries(edits)) if (value !== null && !done.has(label)) out.push([label, value]);
  await writeFile(file, out.map(([l, v]) => `${l}: ${v}\n`).join(''));
}

/**
 * The trusted comment a publisher would sign for the bag as it now is,
 * read leniently from bag-info.txt (missing fields become empty).
 */
export async function currentComment(bagDir: string): Promise<string> {
  const fields = bagit.parseBagInfo(await readFile(join(bagDir, 'bag-info.txt')));
  const get = (k: string): string => fields.find(([l]) => l === k)?.[1] ?? '';
  return trustedComment({ shipment: get('Brickpost-Shipment'), datasetId: get('Brickpost-Dataset-Id'), seq: get('Brickpost-Sequence') as unknown as number });
}

/**
 * Recomputes the tag manifest over the tag files present and signs it with
 * `key`, as sealBag would have after the bag's current tag files.
 * @throws BrickpostError as minisign.signBuffer does.
 */
export async function resealTags(bagDir: string, key: minisign.SigningKey, comment?: string): Promise<void> {
  const tags: Array<{ path: string; digest: string }> = [];
  for (const name of [...TAG_FILES, CUSTODY_TAG_FILE]) {
    if (!(await stat(join(bagDir, name)).catch(() => null))) continue;
    tags.push({
      path: name,
      digest: createHash('sha256')
        .update(await readFile(join(bagDir, name)))
        .digest('hex'),
    });
  }
  await writeFile(join(bagDir, TAG_MANIFEST), bagit.formatManifest(tags));
  await resign(bagDir, key, comment);
}

/**
 * Replaces the signature of the tag manifest with one by `key` (a valid
 * signature, by whoever `key` is), with the given trusted comment or the
 * one bag-info.txt calls for.
 * @throws BrickpostError as minisign.signBuffer does.
 */
export async function resign(bagDir: string, key: minisign.SigningKey, comment?: string): Promise<void> {
  const tagManifest = await readFile(join(bagDir, TAG_MANIFEST));
  const sig = minisign.signBuffer(tagManifest, key, comment ?? (await currentComment(bagDir)));
  await writeFile(join(bagDir, SIGNATURE_FILE), sig);
}

/**
 * Flips one bit of the Ed25519 signature in the signature file, keeping the
 * file well-formed: the signature then no longer verifies.
 */
export async function corruptSignature(bagDir: string): Promise<void> {
  const file = join(bagDir, SIGNATURE_FILE);
  const lines = (await readFile(file, 'utf8')).split('\n');
  const raw = Buffer.from(lines[1]!, 'base64');
  raw[20]! ^= 0x01;
  lines[1] = raw.toString('base64');
  await writeFile(file, lines.join('\n'));
}
