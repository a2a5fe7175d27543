/**
 * Mounted volumes on macOS and Windows. macOS mounts every volume but the
 * boot one under /Volumes (the boot volume appears there as a link to /).
 * Windows names volumes by drive letter: PowerShell's Get-Volume, else the
 * older `wmic logicaldisk`; removable means DriveType 2 ("Removable"), and
 * fixed volumes other than the system drive are offered too (USB hard disks
 * report as fixed).
 */
import { execFile } from 'node:child_process';
import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';

/** A volume found by the OS: where it is mounted, its label, whether removable. */
export interface Volume {
  path: string;
  label: string;
  removable: boolean;
}

function run(cmd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 5000, windowsHide: true, maxBuffer: 1 << 20 }, (err, stdout) => resolve(err ? null : stdout));
  });
}

/** Volumes under /Volumes except the boot volume. Never throws. */
export async function macVolumes(root = '/Volumes'): Promise<Volume[]> {
  const names = await readdir(root).catch(() => [] as string[]);
  const out: Volume[] = [];
  for (const name of names) {
    const path = join(root, name);
    const real = await realpath(path).catch(() => null);
    if (real === null || real === '/') continue;
    out.push({ path, label: name, removable: true });
  }
  return out;
}

/** Parses `Get-Volume | ConvertTo-Json` output (one object or an array). */
export function parseGetVolume(json: string, systemDrive = 'C:'): Volume[] {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return [];
  }
  const rows = (Array.isArray(data) ? data : [data]) as Array<Record<string, unknown>>;
  const out: Volume[] = [];
  for (const r of rows) {
    const letter = typeof r.DriveLetter === 'string' ? r.DriveLetter : null;
    // DriveType is a name ("Removable") or, in older PowerShell, a number (2).
    const type = String(r.DriveType);
    const removable = type === 'Removable' || type === '2';
    const fixed = type === 'Fixed' || type === '3';
    if (!letter || (!removable && !fixed) || (fixed && `${letter}:`.toUpperCase() === systemDrive.toUpperCase())) continue;
    out.push({ path: `${letter}:\\`, label: typeof r.FileSystemLabel === 'string' && r.FileSystemLabel ? r.FileSystemLabel : `${letter}:`, removable });
  }
  return out;
}

/** Parses `wmic logicaldisk get DeviceID,DriveType,VolumeName /format:csv`. */
export function parseWmic(csv: string, systemDrive = 'C:'): Volume[] {
  const lines = csv
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const header = lines.shift()?.split(',') ?? [];
  const col = (name: string): number => header.indexOf(name);
  const out: Volume[] = [];
  for (const line of lines) {
    const f = line.split(',');
    const id = f[col('DeviceID')] ?? '';
    const type = f[col('DriveType')];
    if (!/^[A-Za-z]:$/.test(id) || (type !== '2' && type !== '3') || (type === '3' && id.toUpperCase() === systemDrive.toUpperCase())) continue;
    out.push({ path: `${id}\\`, label: f[col('VolumeName')] || id, removable: type === '2' });
  }
  return out;
}

/** Volumes of this Windows machine. Never throws. */
export async function windowsVolumes(): Promise<Volume[]> {
  const sys = process.env.SystemDrive ?? 'C:';
  const ps = await run('powershell.exe', [
    '-NoProfile',
    '-NonInteractive',
    '-Command',
    'Get-Volume | Where-Object DriveLetter | Select-Object DriveLetter,FileSystemLabel,DriveType | ConvertTo-Json -Compress',
  ]);
  if (ps !== null && ps.trim()) return parseGetVolume(ps, sys);
  const wmic = await run('wmic', ['logicaldisk', 'get', 'DeviceID,DriveType,VolumeName', '/format:csv']);
  return wmic === null ? [] : parseWmic(wmic, sys);
}
