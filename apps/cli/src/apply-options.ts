/**
 * The options ingest and extract share: what they apply of what a shipment
 * recorded (links out of the target, permission bits, setuid and setgid,
 * owners, ACLs, extended attributes, special files), and the limit on how
 * far a shipment may expand (also cat and verify --deep).
 */
import type { IngestOptions } from '@brickpost/engine/api';
import type { Invocation } from './context.js';
import { flag, str } from './context.js';

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

/**
 * --max-expansion: `{ maxExpansion }` (a whole number, or 'none'), or
 * nothing when it is not given. A value that is neither is passed on as
 * NaN, for the engine to refuse with its usage message.
 */
export function expansionOption(inv: Invocation): Pick<IngestOptions, 'maxExpansion'> {
  const v = str(inv, 'max-expansion');
  if (v === undefined) return {};
  return { maxExpansion: v === 'none' ? 'none' : /^[0-9]{1,15}$/.test(v) ? Number(v) : NaN };
}

/** --endpoint-url and --profile: how to reach an s3:// source or destination, or nothing when neither is given. */
export function s3Option(inv: Invocation): { s3?: { endpointUrl?: string; profile?: string } } {
  const endpointUrl = str(inv, 'endpoint-url');
  const profile = str(inv, 'profile');
  if (endpointUrl === undefined && profile === undefined) return {};
  return { s3: { ...(endpointUrl !== undefined ? { endpointUrl } : {}), ...(profile !== undefined ? { profile } : {}) } };
}
