import { join } from 'node:path';
import { BrickpostError, MANIFEST_PATH, packPath, quote } from '@brickpost/manifest';
import type { OpenedShipment } from '../drive/open.js';
import { payloadBound } from '../drive/payload-bound.js';
import { commandLine } from '../io/command.js';
import { sha256File } from '../io/sha256-file.js';
import { RefError, type ReaderRef } from './reader-messages.js';

/** The bag folder holding pack `p`: the shipment's own, another drive of its set, or where missing packs were rebuilt. */
export function packBag(s: OpenedShipment, p: number): string {
  return s.packDirs ? s.packDirs.bags[s.packDirs.of[p]!]! : s.dir;
}

/**
 * A pack reader's refusal of one ref (RefError), said where it is and what
 * it belongs to: the manifest entry (`files`, parallel to `refs`), the pack
 * and the plaintext offset of the frame, and what to do. A frame past the
 * end of a pack whose file matches its signed SHA-256 is the manifest's
 * fault, not the drive's: MALFORMED (FORMAT.md §9.5). Anything else is
 * returned as it is.
 */
export async function blameRef(e: unknown, s: OpenedShipment, pack: number, refs: readonly ReaderRef[], files: readonly string[]): Promise<unknown> {
  if (!(e instanceof RefError) || e.category === 'environment' || e.code === 'CANCELLED') return e;
  const ref = refs[e.ref];
  const file = files[e.ref];
  if (!ref || file === undefined) return e;
  const rel = packPath(pack);
  const bag = packBag(s, pack);
  const path = join(bag, rel);
  const [off, flen] = ref;
  const prefix = `pack ${quote(rel)}: `;
  const why = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  const where = `${quote(file)}: its chunk frame at plaintext offset ${off} of pack ${quote(rel)} (${flen} bytes)`;
  if (e.code === 'TRUNCATED' && (await intact(s, rel, path))) {
    return new BrickpostError(
      'MALFORMED',
      `${MANIFEST_PATH}: the entry ${quote(file)} names a chunk frame at plaintext offset ${off} of pack ${quote(rel)} (${flen} bytes), past the end of that pack, which matches its signed SHA-256`,
      {
        cause: e,
        path,
        hint: 'the manifest and the pack are as the publisher signed them, so the shipment was made this way: do not use it, and ask the publisher for a new drive',
      },
    );
  }
  const hint =
    e.hint ??
    (e.category === 'unsafe'
      ? `${commandLine(['verify', bag])} checks the pack against its signed SHA-256; if it matches, the publisher made the drive so: do not use it, and ask the publisher for a new one`
      : undefined);
  return new BrickpostError(e.code, `${where}: ${why}`, { cause: e, path, ...(hint !== undefined ? { hint } : {}) });
}

/** Whether the pack's file matches its signed SHA-256 (read no further than signed data allows). */
async function intact(s: OpenedShipment, rel: string, path: string): Promise<boolean> {
  const want = s.payload.get(rel);
  if (want === undefined) return false;
  try {
    return (await sha256File(path, undefined, `pack ${rel}`, payloadBound(s, rel))) === want;
  } catch {
    return false;
  }
}
