import { readFileSync } from 'node:fs';
import { BrickpostError } from '@brickpost/manifest';
import type { IngestOptions } from '../api/index.js';

/**
 * What ingest applies of what a shipment recorded (README "What a shipment
 * carries"): permission bits as the source had them, less the subscriber's
 * umask unless asked otherwise (tar's rule: not for root); setuid and setgid
 * only when asked, as root; owners and ACLs only when asked (owners as
 * root); user extended attributes unless asked not to; FIFOs and devices
 * only when asked, as root; symbolic links pointing out of DEST only when
 * asked. Kept in the journal with the commit, so a resumed commit applies
 * the same.
 */
export interface ApplyPolicy {
  /** Permission bits cleared from every mode (the umask; 0 for root or --same-permissions). */
  umask: number;
  setid: boolean;
  owners: boolean;
  acls: boolean;
  xattrs: boolean;
  specials: boolean;
  outsideLinks: boolean;
}

/** The policy of a run that asks for nothing (rollback, a commit journaled before policies existed). */
export const DEFAULT_POLICY: ApplyPolicy = { umask: 0o022, setid: false, owners: false, acls: false, xattrs: true, specials: false, outsideLinks: false };

/** Whether this process runs as root (owners, devices and setuid bits can be applied). */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * The policy an ingest's options ask for.
 * @throws BrickpostError USAGE for what only root may do, asked by another user
 */
export function policyOf(opts: Pick<IngestOptions, 'samePermissions' | 'setid' | 'owners' | 'acls' | 'noXattrs' | 'specials' | 'outsideLinks'>): ApplyPolicy {
  const root = isRoot();
  for (const [asked, option] of [
    [opts.setid, '--setid'],
    [opts.owners, '--owners'],
    [opts.specials, '--specials'],
  ] as const) {
    if (asked && !root)
      throw new BrickpostError('USAGE', `${option} needs root: only root can give files away, make devices or set setuid bits`, {
        hint: `run ingest as root, or leave out ${option}`,
      });
  }
  return {
    umask: root || opts.samePermissions ? 0 : currentUmask(),
    setid: opts.setid === true,
    owners: opts.owners === true,
    acls: opts.acls === true,
    xattrs: opts.noXattrs !== true,
    specials: opts.specials === true,
    outsideLinks: opts.outsideLinks === true,
  };
}

/** The mode an entry gets under a policy: setuid and setgid only when asked, the umask cleared from the permission bits. */
export function modeUnder(p: ApplyPolicy, mode: number): number {
  return mode & (p.setid ? 0o7777 : 0o1777) & ~(p.umask & 0o777);
}

/**
 * This process's umask, read without changing it (Linux reports it in
 * /proc/self/status; elsewhere process.umask(), which sets and restores it).
 */
function currentUmask(): number {
  try {
    const m = /^Umask:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return parseInt(m[1]!, 8);
  } catch {
    // Not Linux: below.
  }
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- Node has no other way to read the umask
  return process.umask();
}
