import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Failpoints: named places where a test can make brickpost die as if the
 * power failed (SIGKILL, no cleanup), to check what a crash there leaves
 * behind. Set `BRICKPOST_FAILPOINT=NAME[@K]` to die at the K-th time (default 1)
 * NAME is reached. Unset, a failpoint costs one property read.
 *
 * Names: `stage` (after a file is staged), `apply-retire`,
 * `apply-install` and `apply-links` (after an op of that phase),
 * `apply-dirs` (before folder modes are set), `apply-state` (before the
 * new state is recorded),
 * `rollback-unstage`, `rollback-restore`, `rollback-step` (after each
 * shipment a rollback undoes), `undo-chunk` (after a chunk of a replaced
 * file is stored, before it is recorded), `undo-record` (after a replaced
 * file is recorded by chunks, before it is removed), `undo-rebuild` (after
 * rollback rebuilds a file from chunks), `pack-close` (after a pack of a
 * shipment is closed), `pack-publish` (the shipment is recorded sealing,
 * before each drive's bag is renamed into place).
 *
 * `failpointError` makes the K-th pass raise an error instead (the
 * process goes on): `drive-write` (a write to a drive, as if it were full),
 * `drive-read` (a read of a pack, as if the drive had a bad sector: EIO),
 * `stage-write` (a write into DEST's staging area, as if DEST were full),
 * `source-open` (pack opening a source file larger than 8 MiB, as if it
 * had vanished since the walk listed it).
 */
const spec = process.env.BRICKPOST_FAILPOINT;
const [armed, nth] = spec ? [spec.split('@')[0], Number(spec.split('@')[1] ?? 1)] : [undefined, 0];
let hits = 0;

export function failpoint(name: string): void {
  if (armed !== name) return;
  if (++hits === nth) process.kill(process.pid, 'SIGKILL');
}

/** Throws `make()` at the K-th time NAME is reached, when NAME is armed. */
export function failpointError(name: string, make: () => Error): void {
  if (armed !== name) return;
  if (++hits === nth) throw make();
}

/**
 * `stallpoint` makes the K-th pass wait forever on a promise nothing will
 * settle, as a step would that awaits work already ended: `pack-walk`
 * (before pack walks the source). The command line must then exit 70
 * (internal), never 0.
 */
export function stallpoint(name: string): Promise<void> {
  if (armed !== name || ++hits !== nth) return Promise.resolve();
  return new Promise<void>(() => undefined);
}

/** An error as the file system raises it (`code` ENOSPC, EIO…), for failpointError. */
export function fsError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message} (simulated)`), { code });
}

/**
 * Pausepoints: with BRICKPOST_PAUSE=NAME:DIR the process stops the first
 * time it reaches NAME: it creates DIR/NAME.reached, then waits until
 * DIR/NAME.go exists. A test holds brickpost at a known step this way (a
 * lock taken) while it runs something else, so the outcome does not depend
 * on how fast either runs. Unset, a pausepoint costs one comparison.
 * With BRICKPOST_PAUSE=NAME*:DIR it stops every time, the K-th time
 * creating DIR/NAME.K.reached and waiting for DIR/NAME.K.go.
 *
 * Names: `lock-held` (a pid lock was just taken: a destination's, or a
 * home's pack lock), `ingest-committed` (DEST committed an ingest; the
 * catalog is not updated yet), `pack-file-read` (pack read a file and is
 * about to check that it did not change meanwhile, pack/settle.ts).
 */
const pause = process.env.BRICKPOST_PAUSE;
const [pauseName, pauseDir] = pause ? [pause.slice(0, pause.indexOf(':')), pause.slice(pause.indexOf(':') + 1)] : [undefined, ''];
const pauseEvery = pauseName?.endsWith('*') ? pauseName.slice(0, -1) : undefined;
let paused = false;
let passes = 0;

export async function pausepoint(name: string): Promise<void> {
  if (pauseEvery === name) {
    const k = ++passes;
    writeFileSync(join(pauseDir, `${name}.${k}.reached`), `${process.pid}\n`);
    while (!existsSync(join(pauseDir, `${name}.${k}.go`))) await new Promise((r) => setTimeout(r, 10));
    return;
  }
  if (pauseName !== name || paused) return;
  paused = true;
  writeFileSync(join(pauseDir, `${name}.reached`), `${process.pid}\n`);
  while (!existsSync(join(pauseDir, `${name}.go`))) await new Promise((r) => setTimeout(r, 10));
}
