/**
 * The options ingest and extract share: what they apply of what a shipment
 * recorded (links out of the target, permission bits, setuid and setgid,
 * owners, ACLs, extended attributes, special files).
 */
import type { IngestOptions } from '@brickpost/engine/api';
import type { Invocation } from './context.js';
import { flag } from './context.js';

type Apply = Pick<IngestOptions, 'outsideLinks' | 'samePermissions' | 'setid' | 'owners' | 'acls' | 'noXattrs' | 'specials'>;

const FLAGS: Array<[string, keyof Apply]> = [
  ['outside-links', 'outsideLinks'],
  ['same-permissions', 'samePermissions'],
  ['setid', 'setid'],
  ['owners', 'owners'],
  ['acls', 'acls'],
  ['no-xattrs', 'noXattrs'],
  ['specials', 'specials'],
];

/** The apply options given on the command line. */
export function applyOptions(inv: Invocation): Apply {
  const out: Apply = {};
  for (const [option, key] of FLAGS) if (flag(inv, option)) out[key] = true;
  return out;
}
