/**
 * Seeded randomness of the kill-anywhere harness. A run has one seed
 * (BRICKPOST_KILL_SEED, else a fixed default, or a random one the soak
 * script picks and prints); every scenario draws from its own stream,
 * derived from the seed and the scenario's name, so changing the number of
 * kills of one scenario does not move the kill points of another.
 */

/** The seed of CI runs: fixed, so a failure reproduces with the same kill points. */
export const DEFAULT_SEED = 20261122;

/** The run's seed: BRICKPOST_KILL_SEED, or DEFAULT_SEED. @throws Error when the variable is not a whole number */
export function runSeed(): number {
  const v = process.env.BRICKPOST_KILL_SEED;
  if (v === undefined || v === '') return DEFAULT_SEED;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`BRICKPOST_KILL_SEED must be a whole number, got ${JSON.stringify(v)}`);
  return n;
}

/** A stream of numbers in [0, 1) (mulberry32), seeded by `seed` and `name`. */
export function stream(seed: number, name: string): () => number {
  // FNV-1a of the name, mixed with the seed.
  let h = 0x811c9dc5 ^ (seed >>> 0) ^ Math.floor(seed / 2 ** 32);
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
