import { ERROR_CODES } from '@brickpost/manifest';
import type { VerifyProblem } from '../api/index.js';

/** A report's most serious problem: authenticity first, then unsafe content, then integrity. */
export function worstProblem(problems: VerifyProblem[]): VerifyProblem | undefined {
  const rank = (p: VerifyProblem): number => {
    const cat = (ERROR_CODES as Record<string, string>)[p.code] ?? 'integrity';
    return cat === 'authenticity' ? 0 : cat === 'unsafe' ? 1 : 2;
  };
  return [...problems].sort((a, b) => rank(a) - rank(b))[0];
}
