/**
 * The plan keeps the records the staging walk of an incremental ingest
 * needs: the header, every record of each file it stages (its continuation
 * records too), the packs and the end, in order; nothing of the files it
 * keeps, folders or links; and nothing at all past its bounds.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { ManifestRecord } from '@brickpost/manifest';
import { RecordStash } from '../src/ingest/record-stash.js';

const id = (n: number): string => n.toString(16).padStart(64, '0');
const file = (p: string, refs: number): ManifestRecord => ({
  t: 'file',
  p,
  size: refs,
  mode: 0o644,
  mtime: '0',
  c: Array.from({ length: refs }, (_, i) => [id(i), 1]),
});
const more = (refs: number): ManifestRecord & { t: 'more' } => ({ t: 'more', c: Array.from({ length: refs }, (_, i) => [id(i), 1]) });
const head = { t: 'shipment' } as unknown as ManifestRecord;
const dir = { t: 'dir', p: 'd', mode: 0o755, mtime: '0' } as ManifestRecord;
const link = { t: 'link', p: 'd/l', target: 'x', mtime: '0' } as unknown as ManifestRecord;
const pack = { t: 'pack', i: 0 } as unknown as ManifestRecord;
const end = { t: 'end' } as unknown as ManifestRecord;

/** Feeds records as planApply does: a file is decided when the next record that is not a continuation comes, or at the end. */
function feed(stash: RecordStash, records: ManifestRecord[], staged: (p: string) => boolean): void {
  let current: string | null = null;
  const decide = (): void => {
    if (current !== null) staged(current) ? stash.staged() : stash.kept();
    current = null;
  };
  for (const r of records) {
    if (r.t === 'more') {
      if (current !== null) stash.more(r);
      continue;
    }
    decide();
    stash.next(r);
    if (r.t === 'file') current = r.p;
  }
  decide();
}

test('keeps the header, the staged files with their continuation records, the packs and the end, in order', () => {
  const a = file('d/a', 2);
  const aMore = more(3);
  const b = file('d/b', 1);
  const c = file('d/c', 4);
  const cMore = more(1);
  const e = file('e', 1);
  const records = [head, dir, a, aMore, b, c, cMore, link, e, pack, end];
  const stash = new RecordStash();
  feed(stash, records, (p) => p === 'd/a' || p === 'e');
  assert.deepEqual(stash.records(), [head, a, aMore, e, pack, end]);
});

test('past its bounds it keeps nothing, whether the records are staged or still pending', () => {
  const records = [head, ...Array.from({ length: 10 }, (_, i) => file(`f${i}`, 1)), pack, end];
  const byRecords = new RecordStash(8, 1000);
  feed(byRecords, records, () => true);
  assert.equal(byRecords.records(), null);
  const within = new RecordStash(13, 1000);
  feed(within, records, () => true);
  assert.equal(within.records()?.length, 13);
  // A file kept costs nothing; a file with more refs than the bound fills it while still undecided.
  const kept = new RecordStash(4, 1000);
  feed(kept, records, () => false);
  assert.deepEqual(kept.records(), [head, pack, end]);
  const big = new RecordStash(100, 50);
  feed(big, [head, file('big', 30), more(30), pack, end], () => false);
  assert.equal(big.records(), null);
});
