import { ERROR_CODES } from '@brickpost/manifest/errors';
import type { VerifyProblem } from '../api/verify.js';
import type { ReportVerdict, ShipmentReport } from '../api/report.js';

/** Limits of a report document. */
export const REPORT_LIMITS = {
  /** Problems listed; the rest are counted in problemsTotal. */
  problems: 1000,
} as const;

const RANK: Record<string, number> = { authenticity: 0, unsafe: 1, integrity: 2 };

function rank(p: VerifyProblem): number {
  const cat = (ERROR_CODES as Record<string, string>)[p.code] ?? 'integrity';
  return RANK[cat] ?? 3;
}

/** The problems most serious first (authenticity, unsafe, integrity, the rest), at most REPORT_LIMITS.problems. */
export function rankProblems(problems: readonly VerifyProblem[]): VerifyProblem[] {
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .slice(0, REPORT_LIMITS.problems)
    .map(({ p }) => p);
}

const VERDICTS: Record<ReportVerdict['status'], Omit<ReportVerdict, 'status' | 'ok'>> = {
  intact: {
    title: 'Genuine and intact',
    advice: 'Signed by a publisher you trust, and every check passed. The shipment can be ingested.',
  },
  repairable: {
    title: 'Damaged, repairable',
    advice: "Some files on the drive are damaged; the drive's own recovery data can repair all of them: run brickpost repair on the drive, then report again.",
  },
  damaged: {
    title: 'Damaged',
    advice:
      'Data on the drive is missing, truncated or corrupt. Do not rely on it: ask the sender for a new copy (a drive set rebuilds lost drives from the others).',
  },
  untrusted: {
    title: 'Untrusted publisher',
    advice:
      'The shipment is signed by a key you do not trust, so its signature cannot be checked here. Check the key id with the publisher by another channel, trust their public key (brickpost trust add), then report again.',
  },
  'not-authentic': {
    title: 'Not authentic',
    advice: 'The signature is missing or invalid, or the shipment is not for your key. Do not use this data; contact the publisher.',
  },
  unsafe: {
    title: 'Unsafe content',
    advice: 'The shipment asks for something brickpost refuses to do (an unsafe path, entry or size). Do not ingest it.',
  },
  differs: {
    title: 'Differs from its shipment',
    advice:
      'Files in the destination were changed, removed or damaged since the shipment was ingested. Ingest the next shipment into a fresh copy, or send the publisher a signature to ship a repair against.',
  },
};

/**
 * The verdict of a report from what its check found: the most serious
 * problem decides (authenticity, then unsafe content, then integrity).
 */
export function verdictOf(r: Pick<ShipmentReport, 'kind' | 'check' | 'publisher' | 'signature' | 'repair'>): ReportVerdict {
  const make = (status: ReportVerdict['status']): ReportVerdict => {
    const v = { status, ok: status === 'intact', ...VERDICTS[status] };
    if (r.kind === 'dest' && status === 'intact') {
      return { ...v, title: 'Intact', advice: 'The destination still matches the shipment it holds.' };
    }
    return v;
  };
  const worst = r.check.problems[0];
  if (r.check.problemsTotal === 0 || !worst) return make('intact');
  if (r.kind === 'dest') return make('differs');
  const cat = rank(worst);
  if (cat === 0) return make(worst.code === 'UNTRUSTED_PUBLISHER' && !r.publisher.trusted ? 'untrusted' : 'not-authentic');
  if (cat === 1) return make('unsafe');
  return make(r.repair?.repairable ? 'repairable' : 'damaged');
}
