/**
 * One argument of a command as a POSIX shell reads it: as is when it holds
 * only characters no shell treats specially, else in single quotes. Hints
 * print commands this way so that they work when pasted (the CLI's
 * format.ts does the same for its own hints).
 */
export function shellArg(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `brickpost ARGS…`, each argument quoted for the shell as needed. */
export function commandLine(args: readonly string[]): string {
  return ['brickpost', ...args.map(shellArg)].join(' ');
}
