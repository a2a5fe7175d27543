import { statfs } from 'node:fs/promises';

/**
 * Whether a destination gets the Windows name rules (FORMAT.md §paths:
 * reserved device names, trailing dots and spaces, `< > : " | ? *`): on
 * Windows, on a FAT, exFAT or NTFS file system seen from another system
 * (where such a name fails or is altered), or when asked (`--windows-names`,
 * for a tree that will be copied to Windows). Elsewhere such names are
 * valid and are accepted.
 */
export async function windowsNameRules(dest: string, asked: boolean): Promise<boolean> {
  if (asked || process.platform === 'win32') return true;
  const fs = await statfs(dest).catch(() => null);
  return fs !== null && WINDOWS_FILE_SYSTEMS.has(fs.type);
}

/** statfs f_type of Windows' file systems on Linux: vfat/msdos, exfat, ntfs3, ntfs. */
const WINDOWS_FILE_SYSTEMS = new Set([0x4d44, 0x2011bab0, 0x7366746e, 0x5346544e]);
