/** Step 4 of a pack (pack.ts): the source written into packs and the manifest. */
import { BrickpostError } from '@brickpost/manifest';
import type { PackEntryCounts, PackOptions } from '../api/index.js';
import { stallpoint } from '../io/failpoint.js';
import { walk, type Excluder } from '../scan/index.js';
import type { EntryPacker } from './entries.js';
import { count, Portability } from './source-rules.js';
import type { S3Source } from '../s3/source.js';

/**
 * Step 4: walks the source in dataset order, chunking, deduplicating,
 * compressing and encrypting each file into packs, and writing its record
 * into the manifest. Returns the names --portable collected.
 * @throws BrickpostError CANCELLED, SOURCE_INCOMPLETE (--strict), and what reading and the drives throw
 */
export async function writeEntries(
  opts: PackOptions,
  source: string,
  s3: S3Source | null,
  exclude: Excluder | undefined,
  entries: EntryPacker,
  counts: PackEntryCounts,
  notShipped: (path: string, reason: string) => void,
  warn: (code: string, message: string, path?: string) => void,
  measured: () => Error | null,
  measuring: Promise<void>,
  signal: AbortSignal | undefined,
): Promise<Portability> {
  const portability = new Portability(opts.portable === true);
  const skipped = (sk: { path: string; reason: string; kind: string }): void => {
    if (sk.kind === 'excluded' || sk.kind === 'cache') counts.excluded++;
    else notShipped(sk.path, sk.reason);
  };
  const walkWarn = (message: string, path: string): void => warn('ATTRIBUTES', message, path);
  await stallpoint('pack-walk');
  const entriesOf = s3
    ? s3.walk(skipped, { exclude, warn: walkWarn })
    : walk(source, skipped, { exclude, excludeCaches: opts.excludeCaches === true, warn: walkWarn });
  try {
    for await (const entry of entriesOf) {
      if (signal?.aborted) throw new BrickpostError('CANCELLED', 'pack cancelled');
      const failed = measured();
      if (failed) throw failed;
      count(counts, entry);
      portability.check(entry.path);
      await entries.add(entry);
    }
    await entries.finish();
  } catch (e) {
    // A large file read ahead stops reading before the pack's packs are aborted.
    await entries.stop();
    throw e;
  }
  await measuring;
  const failed = measured();
  if (failed) throw failed;
  counts.sparseFiles = entries.sparseFiles;
  counts.holeBytes = entries.holeBytes;
  const missed = Object.entries(counts.notShipped);
  if (opts.strict && missed.length > 0) {
    throw new BrickpostError(
      'SOURCE_INCOMPLETE',
      `pack --strict: ${missed.map(([why, n]) => `${n} ${n === 1 ? 'entry' : 'entries'} ${why}`).join(', ')}; nothing was shipped`,
      {
        hint: 'the warnings above name each entry; fix their permissions (or exclude them with --exclude), or pack without --strict to ship the rest',
      },
    );
  }
  return portability;
}
