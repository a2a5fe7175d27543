/**
 * Drive detection: the folders of $BRICKPOST_DRIVES (with their sizes and
 * the shipments on them), parsing /proc/self/mountinfo and choosing the
 * mounts that are drives, and the Windows volume lists (Get-Volume JSON,
 * wmic CSV) from sample outputs.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, utimesSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { detectDrives, driveMounts, parseGetVolume, parseMountinfo, parseWmic } from '@brickpost/desktop/host';
import { tempDir } from '../support.js';

const MOUNTINFO = `22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw,errors=remount-ro
23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
35 22 0:30 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=1617052k,mode=755
412 35 8:17 / /run/media/ana/FIELD\\040DATA rw,nosuid,nodev,relatime shared:230 - exfat /dev/sdb1 rw,uid=1000
413 22 8:33 / /srv/backup rw,relatime shared:231 - ext4 /dev/sdc1 rw
414 22 8:49 / /mnt/brick7 rw,relatime shared:232 - xfs /dev/sdd1 rw
415 22 0:50 / /mnt/scratch rw,relatime shared:233 - tmpfs tmpfs rw
416 22 8:65 / /data/usb optional:1 shared:234 - vfat /dev/sde1 rw
garbage line
`;

test('parseMountinfo reads mount points (with escapes), types and sources', () => {
  const mounts = parseMountinfo(MOUNTINFO);
  assert.equal(mounts.length, 8);
  assert.deepEqual(mounts[0], { mountPoint: '/', fsType: 'ext4', source: '/dev/sda2' });
  assert.deepEqual(mounts[3], { mountPoint: '/run/media/ana/FIELD DATA', fsType: 'exfat', source: '/dev/sdb1' });
  assert.deepEqual(mounts[7], { mountPoint: '/data/usb', fsType: 'vfat', source: '/dev/sde1' }, 'optional fields before the separator');
});

test('driveMounts keeps removable devices and real file systems under /media, /run/media and /mnt', async () => {
  const removable = new Set(['/dev/sdb1', '/dev/sde1']);
  const drives = await driveMounts(parseMountinfo(MOUNTINFO), async (dev) => removable.has(dev));
  assert.deepEqual(
    drives.map((d) => [d.mountPoint, d.removable]),
    [
      ['/run/media/ana/FIELD DATA', true],
      ['/mnt/brick7', false],
      ['/data/usb', true],
    ],
  );
});

test('detectDrives lists the $BRICKPOST_DRIVES folders with free space and their shipments, newest first', async () => {
  const root = tempDir('bp-drives-');
  const a = join(root, 'drive-a');
  const b = join(root, 'drive-b');
  mkdirSync(join(a, 'brickpost', 'old-shipment'), { recursive: true });
  mkdirSync(join(a, 'brickpost', 'new-shipment'));
  mkdirSync(join(a, 'brickpost', 'unfinished.part'));
  utimesSync(join(a, 'brickpost', 'old-shipment'), new Date('2026-01-01'), new Date('2026-01-01'));
  mkdirSync(b);
  const env = [a, '', b, join(root, 'missing')].join(delimiter);
  const drives = await detectDrives({ platform: 'aix', envDrives: env });
  assert.deepEqual(
    drives.map((d) => d.path),
    [a, b],
    'existing folders, in order; the missing one left out',
  );
  const [da, db] = drives as [(typeof drives)[0], (typeof drives)[0]];
  assert.equal(da.label, 'drive-a');
  assert.equal(da.removable, false);
  assert.deepEqual(da.shipments, ['new-shipment', 'old-shipment']);
  assert.deepEqual(db.shipments, []);
  assert.ok(typeof da.totalBytes === 'number' && da.totalBytes > 0);
  assert.ok(typeof da.freeBytes === 'number' && da.freeBytes <= da.totalBytes);
  const twice = await detectDrives({ platform: 'aix', envDrives: [a, a].join(delimiter) });
  assert.equal(twice.length, 1, 'a folder named twice is listed once');
});

test('Windows volume lists: removable drives, and fixed ones but the system drive', () => {
  const json = JSON.stringify([
    { DriveLetter: 'C', FileSystemLabel: 'Windows', DriveType: 'Fixed' },
    { DriveLetter: 'E', FileSystemLabel: 'FIELD', DriveType: 'Removable' },
    { DriveLetter: 'F', FileSystemLabel: '', DriveType: 'Fixed' },
    { DriveLetter: 'G', FileSystemLabel: 'DVD', DriveType: 'CD-ROM' },
    { DriveLetter: null, FileSystemLabel: 'Recovery', DriveType: 'Fixed' },
  ]);
  assert.deepEqual(parseGetVolume(json, 'C:'), [
    { path: 'E:\\', label: 'FIELD', removable: true },
    { path: 'F:\\', label: 'F:', removable: false },
  ]);
  assert.deepEqual(parseGetVolume(JSON.stringify({ DriveLetter: 'E', FileSystemLabel: 'ONE', DriveType: 2 })), [
    { path: 'E:\\', label: 'ONE', removable: true },
  ]);
  assert.deepEqual(parseGetVolume('not json'), []);
  const csv = '\r\nNode,DeviceID,DriveType,VolumeName\r\nPC,C:,3,Windows\r\nPC,D:,5,\r\nPC,E:,2,FIELD\r\n';
  assert.deepEqual(parseWmic(csv, 'C:'), [{ path: 'E:\\', label: 'FIELD', removable: true }]);
});
