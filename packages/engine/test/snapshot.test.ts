/**
 * pack --snapshot. This machine refuses loop devices, so no btrfs file
 * system can be made and mounted here: the refusal is tested on the
 * machine's own file system, and the commands and their cleanup with a
 * stand-in runner that does what `btrfs subvolume snapshot -r` and
 * `btrfs subvolume delete` do to the tree (a copy, a removal), around a
 * real pack. The real btrfs path runs only where the temporary folder is
 * on btrfs and brickpost runs as root.
 */
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBrickpostError } from '@brickpost/manifest';
import { Engine } from '../src/engine.js';
import { mountOf, packFromSnapshot, snapshotCommands, withSnapshot, type SnapshotDeps } from '../src/pack/snapshot.js';

const root = mkdtempSync(join(tmpdir(), 'bp-snapshot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const here = mountOf(root);

test('mountinfo: the longest mount point holding the path, escapes read', () => {
  const info = [
    '22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
    '40 22 0:35 / /srv rw,relatime shared:2 - btrfs /dev/sdb1 rw,subvol=/',
    '41 40 0:36 / /srv/my\\040data rw,relatime shared:3 - zfs tank/data rw',
    '42 22 0:37 / /srvx rw shared:4 master:1 - xfs /dev/mapper/vg-lv rw',
  ].join('\n');
  assert.deepEqual(mountOf('/srv/survey/2026', info), { fsType: 'btrfs', mountPoint: '/srv', device: '/dev/sdb1' });
  assert.deepEqual(mountOf('/srv/my data/x', info), { fsType: 'zfs', mountPoint: '/srv/my data', device: 'tank/data' });
  assert.deepEqual(mountOf('/srvx/a', info), { fsType: 'xfs', mountPoint: '/srvx', device: '/dev/mapper/vg-lv' });
  assert.deepEqual(mountOf('/home/me', info), { fsType: 'ext4', mountPoint: '/', device: '/dev/sda1' });
});

test('the btrfs commands: a read-only snapshot of the subvolume into it, then its deletion', () => {
  assert.deepEqual(snapshotCommands('/srv/data', '/srv/data/.brickpost-snapshot-1a2b3c4d'), {
    create: ['btrfs', ['subvolume', 'snapshot', '-r', '/srv/data', '/srv/data/.brickpost-snapshot-1a2b3c4d']],
    remove: ['btrfs', ['subvolume', 'delete', '/srv/data/.brickpost-snapshot-1a2b3c4d']],
  });
});

test.skipIf(here?.fsType === 'btrfs')(
  `elsewhere --snapshot is refused, naming the file system found${here?.fsType === 'btrfs' ? ` [skipped: ${root} is on btrfs here: the refusal needs another file system]` : ''}`,
  async () => {
    let ran = false;
    await assert.rejects(
      withSnapshot(
        root,
        async () => void (ran = true),
        () => undefined,
      ),
      (e) =>
        isBrickpostError(e, 'USAGE') &&
        e.message.includes(`is on a ${here!.fsType} file system`) &&
        e.message.includes('brickpost takes snapshots on btrfs only') &&
        /pack without --snapshot/.test(e.hint ?? ''),
    );
    assert.equal(ran, false, 'nothing packed');
    const zfs: SnapshotDeps = {
      mountOf: () => ({ fsType: 'zfs', mountPoint: '/tank', device: 'tank/survey' }),
      subvolumeOf: () => assert.fail(),
      run: () => assert.fail(),
    };
    await assert.rejects(
      withSnapshot(
        '/tank/x',
        async () => 1,
        () => undefined,
        zfs,
      ),
      (e) => isBrickpostError(e, 'USAGE') && /zfs snapshot tank\/survey@brickpost/.test(e.hint ?? ''),
    );
  },
);

/** A stand-in for the btrfs tool on a plain folder: snapshot copies the tree, delete removes it. */
function standIn(subvolume: string, log: string[][], failDelete = false): SnapshotDeps {
  return {
    mountOf: () => ({ fsType: 'btrfs', mountPoint: subvolume, device: '/dev/sdz1' }),
    subvolumeOf: () => subvolume,
    run: async (cmd, args) => {
      log.push([cmd, ...args]);
      if (args[1] === 'snapshot') {
        const copy = mkdtempSync(join(root, 'copy-'));
        cpSync(args[3]!, copy, { recursive: true });
        renameSync(copy, args[4]!);
      } else if (failDelete) throw new Error('ERROR: Could not destroy subvolume/snapshot: Operation not permitted');
      else rmSync(args[2]!, { recursive: true });
    },
  };
}

test('a real pack of the snapshot: its tree, named after the source; the snapshot removed', async () => {
  const vol = join(root, 'vol');
  const src = join(vol, 'survey');
  mkdirSync(join(src, 'logs'), { recursive: true });
  writeFileSync(join(src, 'logs', 'run.log'), 'as it was\n');
  const drive = join(root, 'drive');
  mkdirSync(drive);
  const engine = Engine.open({ home: join(root, 'home') });
  engine.keygen({ name: 'lab' });
  const log: string[][] = [];
  const s = await packFromSnapshot(
    { source: src, drives: [drive], recipients: [] },
    () => undefined,
    async (o) => {
      // The live tree changes once the snapshot is taken: the shipment does not see it.
      writeFileSync(join(src, 'logs', 'run.log'), 'changed after the snapshot\n');
      assert.match(o.source, /\/vol\/\.brickpost-snapshot-[0-9a-f]{8}\/survey$/);
      return engine.pack(o, () => undefined);
    },
    standIn(vol, log),
  );
  assert.equal(s.dataset, 'survey');
  assert.equal(log.length, 2);
  const dir = log[0]![5]!;
  assert.deepEqual(log, [
    ['btrfs', 'subvolume', 'snapshot', '-r', vol, dir],
    ['btrfs', 'subvolume', 'delete', dir],
  ]);
  assert.ok(!existsSync(dir), 'snapshot removed');
  assert.ok(s.notes.some((n) => n.includes(`read-only snapshot of ${src}`)));
  const out = join(root, 'out');
  await engine.extract({ drive, paths: ['logs/run.log'], to: out }, () => undefined);
  assert.equal(readFileSync(join(out, 'logs', 'run.log'), 'utf8'), 'as it was\n');
});

test('the snapshot is removed when the pack fails; a snapshot that cannot be removed is a warning naming the command', async () => {
  const vol = join(root, 'vol2');
  mkdirSync(join(vol, 'data'), { recursive: true });
  const log: string[][] = [];
  await assert.rejects(
    withSnapshot(
      join(vol, 'data'),
      async () => {
        throw new Error('pack failed');
      },
      () => undefined,
      standIn(vol, log),
    ),
    /pack failed/,
  );
  assert.deepEqual(
    log.map((c) => c[2]),
    ['snapshot', 'delete'],
  );
  assert.ok(!existsSync(log[1]![3]!));
  const warnings: string[] = [];
  const r = await withSnapshot(
    join(vol, 'data'),
    async () => 'done',
    (m) => warnings.push(m),
    standIn(vol, [], true),
  );
  assert.equal(r.result, 'done', 'the result stands');
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!,
    /could not be removed: ERROR: Could not destroy subvolume\/snapshot: Operation not permitted; remove it with: btrfs subvolume delete \/.*\.brickpost-snapshot-[0-9a-f]{8}$/,
  );
});

const btrfsHere = here?.fsType === 'btrfs' && process.getuid?.() === 0;
test.skipIf(!btrfsHere)(
  `on btrfs, as root: a real snapshot taken and removed${!btrfsHere ? ` [skipped: the temporary folder is on ${here?.fsType ?? 'an unknown file system'}, not btrfs, or this is not root: no btrfs file system can be mounted here (loop devices are refused), so the real btrfs path is not exercised on this machine]` : ''}`,
  async () => {
    const vol = join(root, 'subvol');
    execFileSync('btrfs', ['subvolume', 'create', vol]);
    writeFileSync(join(vol, 'f'), 'x');
    const r = await withSnapshot(
      vol,
      async (p) => readFileSync(join(p, 'f'), 'utf8'),
      (m) => assert.fail(m),
    );
    assert.equal(r.result, 'x');
    assert.ok(!existsSync(r.snapshot));
    execFileSync('btrfs', ['subvolume', 'delete', vol]);
  },
);
