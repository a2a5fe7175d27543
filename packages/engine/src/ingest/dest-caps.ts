import { randomBytes } from 'node:crypto';
import { closeSync, lstatSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BrickpostError, displayName, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { windowsNameRules } from './name-rules.js';

/**
 * What a destination's file system can hold apart, found by trying it in
 * DEST's state folder (so on DEST's file system, with its folder flags):
 * names that differ only in case (NTFS, APFS and exFAT fold them; so does
 * an ext4 or tmpfs folder with casefolding), names that differ only in
 * Unicode normalisation (APFS and HFS+ do not keep both), and whether
 * Windows' name rules apply.
 */
export interface DestCaps {
  caseInsensitive: boolean;
  normalizationInsensitive: boolean;
  windowsNames: boolean;
}

/**
 * Probes the file system of `stateDir` (DEST/.brickpost): creates a file
 * and looks it up under another case, then another normalisation, and
 * removes it.
 * @throws BrickpostError PERMISSION, NO_SPACE, IO
 */
export async function probeDest(dest: string, stateDir: string, windowsAsked: boolean): Promise<DestCaps> {
  // A probe killed between its create and its remove left its file: gone before the next probe.
  for (const name of readdirSync(stateDir)) if (/^probe-[0-9a-f]{8}-/.test(name)) rmSync(join(stateDir, name), { force: true });
  const tag = randomBytes(4).toString('hex');
  return {
    caseInsensitive: seenAs(stateDir, `probe-${tag}-Aa`, `probe-${tag}-aA`),
    // U+00E9 (NFC é) looked up as e + U+0301 (NFD).
    normalizationInsensitive: seenAs(stateDir, `probe-${tag}-\u00e9`, `probe-${tag}-e\u0301`),
    windowsNames: await windowsNameRules(dest, windowsAsked),
  };
}

/** Whether a file created as `made` is found as `sought`. */
function seenAs(dir: string, made: string, sought: string): boolean {
  const path = join(dir, made);
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (e) {
    throw toEnvironmentError(e, 'cannot probe the destination file system');
  }
  try {
    return lstatSync(join(dir, sought), { throwIfNoEntry: false }) !== undefined;
  } finally {
    rmSync(path, { force: true });
  }
}

/**
 * The refusal of a shipment whose names the destination cannot hold apart,
 * listing the groups (each a folder and its colliding names).
 */
export function collisionError(dest: string, caps: DestCaps, groups: Array<{ parent: string; names: string[] }>, total: number): BrickpostError {
  const what = caps.caseInsensitive ? 'in case or Unicode form' : 'in Unicode normalisation';
  const list = groups
    .slice(0, 10)
    .map((g) => g.names.map((n) => quote(displayName(g.parent ? `${g.parent}/${n}` : n))).join(' and '))
    .join('; ');
  return new BrickpostError(
    'NAME_COLLISION',
    `the file system of ${quote(dest)} does not tell names apart that differ only ${what}, and the shipment holds ${total} such ${total === 1 ? 'group' : 'groups'}: ${list}${total > 10 ? '; …' : ''}; nothing was changed`,
    {
      path: dest,
      hint: 'ingest into a folder on a case-sensitive file system (Linux ext4, XFS, btrfs; a case-sensitive APFS volume on macOS), or ask the publisher to rename them (pack --portable finds them)',
    },
  );
}
