/**
 * The verdict of a check, in four words a person acts on: `intact` (genuine
 * and intact), `damaged` (missing, modified or bad signature by a trusted
 * key), `untrusted` (signed by a key this home does not trust) and
 * `not-brickpost` (no shipment on it). Tests read `data-verdict`.
 */
import type { VerifyReport } from '@brickpost/engine/api';
import { isCode } from '../api.js';
import { h, type Child } from '../ui/dom.js';
import { describe } from '../ui/errors.js';
import { fingerprint } from '../ui/format.js';

export type Verdict = 'intact' | 'damaged' | 'untrusted' | 'not-brickpost';

const AUTHENTICITY = new Set(['UNTRUSTED_PUBLISHER', 'UNSIGNED', 'NO_MATCHING_KEY']);

/** The verdict of a keyless (or deep) verify report. */
export function verdictOf(r: VerifyReport): Verdict {
  if (r.ok) return 'intact';
  if (!r.publisher.trusted || r.problems.some((p) => AUTHENTICITY.has(p.code))) {
    // A bad signature by a key we trust means the drive was modified: damaged.
    if (r.publisher.trusted && r.signature === 'invalid') return 'damaged';
    return 'untrusted';
  }
  return 'damaged';
}

/** The verdict when verify itself failed: no shipment there, or an error. */
export function verdictOfError(e: unknown): Verdict | null {
  return isCode(e, 'NOT_A_DRIVE', 'NOT_FOUND') ? 'not-brickpost' : null;
}

const HEADLINES: Record<Verdict, string> = {
  intact: 'Genuine and intact',
  damaged: 'Damaged: do not use this drive as it is',
  untrusted: 'Untrusted publisher',
  'not-brickpost': 'Not a brickpost drive',
};

function explanation(v: Verdict, r: VerifyReport | null): string {
  switch (v) {
    case 'intact':
      return 'The publisher you trust signed this shipment, and every file on the drive is present and unmodified.';
    case 'damaged':
      return r?.repair?.repairable
        ? 'Some files on the drive are missing or modified. The drive carries recovery data that can repair them: run "brickpost repair" on it, then check again.'
        : 'Some files on the drive are missing or modified since the publisher signed them. Ask the publisher for another copy, or add more drives of the set.';
    case 'untrusted':
      return r?.publisher.trusted === false && r.publisher.keyId
        ? `The shipment is signed by key ${fingerprint(r.publisher.keyId)}, which you do not trust. If you expected it, compare this key id with the publisher (by phone, not by email) and add their key in Trust.`
        : "The shipment is not signed by a key you trust. Add the publisher's key in Trust after checking it with them.";
    case 'not-brickpost':
      return 'There is no complete brickpost shipment in this folder. Choose the drive\'s top folder (the one holding "brickpost/").';
  }
}

/** The verdict box: a stable data-verdict, a headline and the next step, announced politely. */
export function verdictBox(v: Verdict, r: VerifyReport | null, error?: unknown, extra?: Child): HTMLElement {
  const detail = error ? describe(error) : null;
  return h(
    'div',
    { class: `verdict verdict-${v}`, 'data-verdict': v, role: 'status', 'aria-live': 'polite' },
    h(
      'p',
      { class: 'verdict-headline' },
      h('span', { class: 'verdict-icon', 'aria-hidden': 'true' }, v === 'intact' ? '✔' : v === 'not-brickpost' ? '?' : '✖'),
      ' ',
      HEADLINES[v],
    ),
    h('p', {}, explanation(v, r)),
    detail ? h('p', { class: 'muted' }, detail.message) : null,
    extra,
  );
}
