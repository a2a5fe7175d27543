/** A word for a POSIX shell, for commands in hints that must work as printed: as it is when plain, else in single quotes. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
