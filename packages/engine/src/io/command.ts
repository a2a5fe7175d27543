/**
 * Commands in hints, printed so that they work when pasted into a POSIX
 * shell (the CLI's format.ts prints its own the same way).
 */

/** One argument as a shell reads it: as is when it holds only harmless characters, else in single quotes. */
export function shellArg(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `brickpost ARGS…`, each argument quoted as the shell needs. */
export function commandLine(args: readonly string[]): string {
  return ['brickpost', ...args.map(shellArg)].join(' ');
}
