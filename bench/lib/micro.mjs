/**
 * Timing helpers of the microbenchmarks (chunk-micro, delta-micro): wall and
 * CPU seconds of one run, and the best of several.
 */

/** Runs fn, returns { wall, cpu, result }: seconds, CPU of this process (all threads). */
export async function time(fn) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await fn();
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1e6, result };
}

/** Best of `runs` by wall time. */
export async function best(runs, fn) {
  let top = null;
  for (let i = 0; i < runs; i++) {
    const r = await time(fn);
    if (!top || r.wall < top.wall) top = r;
  }
  return top;
}
