/**
 * Failpoints: named places where a test can make brickpost die as if the
 * power failed (SIGKILL, no cleanup), to check what a crash there leaves
 * behind. Set BRICKPOST_FAILPOINT=NAME[@K] to die at the K-th time (default 1)
 * NAME is reached. Unset, a failpoint costs one property read.
 *
 * Names: `stage` (after a file is staged), `apply-retire` and
 * `apply-install` (after an op of that phase), `apply-dirs` (before folder
 * modes are set), `apply-state` (before the new state is recorded),
 * `rollback-unstage`, `rollback-restore`.
 */
const spec = process.env.BRICKPOST_FAILPOINT;
const [armed, nth] = spec ? [spec.split('@')[0], Number(spec.split('@')[1] ?? 1)] : [undefined, 0];
let hits = 0;

export function failpoint(name: string): void {
  if (armed !== name) return;
  if (++hits === nth) process.kill(process.pid, 'SIGKILL');
}
