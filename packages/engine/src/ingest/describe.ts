import { lstat, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, SignatureOptions, SignatureSummary } from '../api/index.js';
import type { Context } from '../context.js';
import { openSettled } from './settle.js';
import { DestFolder } from './state.js';
import { Progress } from '../io/progress.js';
import { toEnvironmentError } from '../io/errors.js';
import { measure } from '../scan/index.js';
import { scanFolder } from '../sigfile/scan.js';
import { SignatureFileWriter } from '../sigfile/writer.js';

/**
 * `brickpost signature`: describes what a folder holds in a signature file
 * (kind 'signature', plain SHA-256 chunk ids), signed with this home's key,
 * so the publisher can build a shipment against it. Works on any folder; a
 * brickpost destination also names its dataset, publisher and last applied
 * shipment, and is locked while it is read so no ingest commits meanwhile.
 * @throws BrickpostError NOT_FOUND, USAGE, NO_IDENTITY, LOCKED, UNFINISHED, PERMISSION, IO, UNSAFE_ENTRY, CANCELLED
 */
export async function writeSignature(ctx: Context, opts: SignatureOptions, onEvent: EventSink, signal?: AbortSignal): Promise<SignatureSummary> {
  const started = performance.now();
  const me = ctx.identity();
  const dest = resolve(opts.dest);
  const out = resolve(opts.out);
  const st = await lstat(dest).catch(() => null);
  if (!st?.isDirectory()) throw new BrickpostError('NOT_FOUND', `${quote(opts.dest)} is not a folder`, { path: dest });
  const rel = relative(dest, out);
  const outside = rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  if (!outside && rel.split(sep)[0] !== '.brickpost') {
    throw new BrickpostError('USAGE', `the signature file ${quote(opts.out)} would be inside the folder it describes`, { hint: 'write it outside the folder' });
  }
  if (!(await stat(resolve(out, '..')).catch(() => null))?.isDirectory()) {
    throw new BrickpostError('NOT_FOUND', `the folder of ${quote(opts.out)} does not exist`, { path: out });
  }
  if (
    opts.dataset !== undefined &&
    (opts.dataset !== opts.dataset.trim() || /[\u0000-\u001f\u007f]/.test(opts.dataset) || opts.dataset.length === 0 || opts.dataset.length > 255)
  ) {
    throw new BrickpostError('USAGE', `dataset ${quote(opts.dataset)} must be 1 to 255 characters without leading or trailing spaces or control characters`);
  }

  // A brickpost destination is locked while it is read, after an interrupted ingest or rollback is finished.
  const settled = (await new DestFolder(dest).readState()) ? await openSettled(dest, 'signature', me.ageIdentities, onEvent) : null;
  const state = settled?.state ?? null;
  if (state && opts.dataset !== undefined && opts.dataset !== state.dataset) {
    throw new BrickpostError('USAGE', `${quote(opts.dest)} holds dataset ${quote(state.dataset)}, not ${quote(opts.dataset)}`, {
      hint: 'leave out --dataset for a brickpost destination',
    });
  }
  const last = state?.applied[state.applied.length - 1];
  const unlock = settled?.unlock;
  let warnings = 0;
  const warn = (code: string, message: string, path?: string): void => {
    warnings++;
    onEvent({ type: 'warning', code, message, ...(path ? { path } : {}) });
  };
  try {
    const progress = new Progress(onEvent, 'scan');
    progress.emit();
    // The totals (for the ETA) are measured while scanning starts.
    const measuring = measure(dest).then(
      (t) => void ((progress.bytesTotal = t.bytes), (progress.filesTotal = t.files)),
      () => undefined,
    );
    const writer = await SignatureFileWriter.create(out, {
      kind: 'signature',
      ids: 'sha256',
      dataset: state?.dataset ?? opts.dataset ?? null,
      datasetId: state?.datasetId ?? null,
      publisher: state?.publisher ?? null,
      state: last ? { shipment: last.shipment, seq: last.seq } : null,
      subscriber: me.keyId,
      recipient: me.recipient,
    });
    try {
      const files = scanFolder(dest, {
        onBytes: (n) => progress.add(n),
        onSkip: (s) => warn('SKIPPED', `skipped ${quote(s.path)}: ${s.reason}`, s.path),
        ...(signal ? { signal } : {}),
      });
      for await (const f of files) {
        if (f.changed) warn('CHANGED', `${quote(f.p)} ${f.changed}`, f.p);
        await writer.addFile(f.p, f.size, f.chunks);
        progress.add(0, 1);
      }
      await measuring;
      progress.phase = 'seal';
      progress.emit();
      const t = await writer.close(me.signingKey);
      const fileSize = (await stat(out)).size;
      return {
        dest,
        out,
        sha256: t.sha256,
        dataset: writer.header.dataset,
        datasetId: writer.header.datasetId,
        state: writer.header.state,
        files: t.files,
        chunks: t.chunks,
        bytes: t.bytes,
        fileSize,
        seconds: (performance.now() - started) / 1000,
        warnings,
      };
    } catch (e) {
      await writer.abort();
      throw toEnvironmentError(e, 'signature failed');
    }
  } finally {
    await unlock?.();
  }
}
