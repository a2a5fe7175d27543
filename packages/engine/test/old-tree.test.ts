import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrickpostError, type FileRecord, type ManifestRecord } from '@brickpost/manifest';
import { oldFilesFromManifest, type OldFile } from '../src/ingest/old-tree.js';

const root = mkdtempSync(join(tmpdir(), 'brickpost-old-tree-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ID = 'ab'.repeat(32);

/** A file record for DEST's file at `p` as it is now (or with `size` changed), one chunk. */
function fileRecord(dest: string, p: string, size?: number): FileRecord {
  const st = lstatSync(join(dest, p), { bigint: true });
  const n = size ?? Number(st.size);
  return { t: 'file', p, size: n, mode: 0o644, mtime: String(st.mtimeNs), c: [[ID, n]] };
}

async function collect(dest: string, records: ManifestRecord[]): Promise<OldFile[]> {
  async function* feed(): AsyncGenerator<ManifestRecord> {
    yield* records;
  }
  const out: OldFile[] = [];
  for await (const f of oldFilesFromManifest(dest, feed())) out.push(f);
  return out;
}

test('old files keep the manifest order across stat batches; a file matches only as the tree says, below real folders', async () => {
  const dest = join(root, 'order');
  mkdirSync(join(dest, 'big'), { recursive: true });
  mkdirSync(join(dest, 'real'));
  writeFileSync(join(dest, 'real', 'f'), 'abc');
  writeFileSync(join(dest, 'real', 'g'), 'abcd');
  symlinkSync('real', join(dest, 'link'));
  const records: ManifestRecord[] = [{ t: 'dir', p: 'big', mode: 0o755, mtime: '0' }];
  // More files than one batch holds, so several are in flight.
  for (let i = 0; i < 1300; i++) {
    const p = `big/${String(i).padStart(5, '0')}`;
    writeFileSync(join(dest, p), `${i}`);
    records.push(fileRecord(dest, p));
  }
  records.push(
    { t: 'dir', p: 'link', mode: 0o755, mtime: '0' },
    { ...fileRecord(dest, 'real/f'), p: 'link/f' },
    // Below a folder that is not real, a name its lstat fails on (ENAMETOOLONG) is not examined.
    { ...fileRecord(dest, 'real/f'), p: `link/${'x'.repeat(300)}` },
    { t: 'dir', p: 'real', mode: 0o755, mtime: '0' },
    fileRecord(dest, 'real/f'),
    fileRecord(dest, 'real/g', 5),
    { ...fileRecord(dest, 'real/f'), p: 'real/gone' },
  );
  const files = await collect(dest, records);
  assert.deepEqual(
    files.map((f) => f.path),
    records.filter((r) => r.t === 'file').map((r) => (r as { p: string }).p),
  );
  assert.equal(files.slice(0, 1300).filter((f) => f.ok).length, 1300);
  assert.deepEqual(
    files.slice(1300).map((f) => [f.path.slice(0, 12), f.ok]),
    [
      ['link/f', false],
      ['link/xxxxxxx', false],
      ['real/f', true],
      ['real/g', false],
      ['real/gone', false],
    ],
  );
});

test('an entry of a real folder that cannot be examined fails the load with an environment error naming it', async () => {
  const dest = join(root, 'fails');
  mkdirSync(join(dest, 'real'), { recursive: true });
  writeFileSync(join(dest, 'real', 'f'), 'abc');
  const bad = `real/${'y'.repeat(300)}`;
  await assert.rejects(
    collect(dest, [{ t: 'dir', p: 'real', mode: 0o755, mtime: '0' }, fileRecord(dest, 'real/f'), { ...fileRecord(dest, 'real/f'), p: bad }]),
    (e: unknown) => e instanceof BrickpostError && e.code === 'IO' && e.message.includes('cannot examine') && e.message.includes('yyyy'),
  );
});
