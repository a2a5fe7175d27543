/**
 * Drive detection for the "choose target drives" step: the removable
 * drives this OS has mounted (Linux, macOS, Windows), plus the folders named
 * in $BRICKPOST_DRIVES (separated by the path delimiter, `:` or `;`), which
 * stand in for drives. Each comes with its size, free space and the
 * shipments already on it (folders under brickpost/).
 */
import { readdir, stat, statfs } from 'node:fs/promises';
import { basename, delimiter, join, resolve } from 'node:path';
import type { DetectedDrive } from '../shared/api.js';
import { linuxDriveMounts } from './mountinfo.js';
import { macVolumes, windowsVolumes, type Volume } from './volumes.js';

/** What detection looks at; tests pass their own. */
export interface DriveSources {
  platform?: NodeJS.Platform;
  /** $BRICKPOST_DRIVES's value. */
  envDrives?: string | undefined;
}

/** The folders of a $BRICKPOST_DRIVES value, absolute, empty entries dropped. */
export function envDriveFolders(value: string | undefined): string[] {
  return (value ?? '')
    .split(delimiter)
    .filter((p) => p.trim() !== '')
    .map((p) => resolve(p));
}

async function osVolumes(platform: NodeJS.Platform): Promise<Volume[]> {
  if (platform === 'linux')
    return (await linuxDriveMounts()).map((m) => ({ path: m.mountPoint, label: basename(m.mountPoint) || m.mountPoint, removable: m.removable }));
  if (platform === 'darwin') return macVolumes();
  if (platform === 'win32') return windowsVolumes();
  return [];
}

/** A promise that gives up after `ms` (a hung network mount must not hang the list). */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((r) => {
    timer = setTimeout(() => r(fallback), ms);
    timer.unref();
  });
  return Promise.race([p.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}

/** Shipment ids under DRIVE/brickpost/ (complete ones, not `.part`), newest first. */
export async function shipmentsOn(drive: string): Promise<string[]> {
  const dir = join(drive, 'brickpost');
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: Array<{ id: string; mtime: number }> = [];
  for (const e of entries) {
    if (!e.isDirectory() || e.name.endsWith('.part') || e.name.startsWith('.')) continue;
    const st = await stat(join(dir, e.name)).catch(() => null);
    found.push({ id: e.name, mtime: st?.mtimeMs ?? 0 });
  }
  return found.sort((a, b) => b.mtime - a.mtime || (a.id < b.id ? 1 : -1)).map((f) => f.id);
}

async function describe(v: Volume): Promise<DetectedDrive> {
  const fs = await within(statfs(v.path), 2000, null);
  return {
    path: v.path,
    label: v.label,
    removable: v.removable,
    totalBytes: fs ? fs.blocks * fs.bsize : null,
    freeBytes: fs ? fs.bavail * fs.bsize : null,
    shipments: await within(shipmentsOn(v.path), 2000, []),
  };
}

/**
 * The drives to offer: OS-detected first, then $BRICKPOST_DRIVES folders
 * that exist (a path listed by both appears once). Never throws.
 */
export async function detectDrives(src: DriveSources = {}): Promise<DetectedDrive[]> {
  const platform = src.platform ?? process.platform;
  const env = 'envDrives' in src ? src.envDrives : process.env.BRICKPOST_DRIVES;
  const volumes = await within(osVolumes(platform), 8000, []);
  for (const folder of envDriveFolders(env)) {
    const st = await stat(folder).catch(() => null);
    if (st?.isDirectory()) volumes.push({ path: folder, label: basename(folder) || folder, removable: false });
  }
  const seen = new Set<string>();
  const unique = volumes.filter((v) => !seen.has(v.path) && seen.add(v.path));
  return Promise.all(unique.map(describe));
}
