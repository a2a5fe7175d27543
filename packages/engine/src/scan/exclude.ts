import { BrickpostError, quote } from '@brickpost/manifest';

/**
 * Exclude patterns (`pack --exclude`, `--exclude-from`), with the rules
 * restic and rsync users know:
 *
 * - a pattern is matched against an entry's path relative to the source
 *   folder, component by component; without a leading `/` it matches at any
 *   depth (as if it began with two stars and a slash), with one it is
 *   anchored to the source folder;
 * - a trailing `/` makes it match folders only;
 * - `*` matches any run of characters within one name, `?` one character,
 *   `[abc]`, `[a-z]` and `[!abc]` one character of (or not of) a set, `**`
 *   any run of whole names (zero or more folders), and `\` makes the next
 *   character literal;
 * - a folder that matches is left out whole: nothing below it is read.
 */
export interface Excluder {
  /** Whether the entry at `path` (relative, `/`-separated) is left out. */
  excludes(path: string, isDir: boolean): boolean;
  readonly patterns: readonly string[];
}

interface Compiled {
  re: RegExp;
  dirOnly: boolean;
}

/**
 * Compiles patterns. Blank patterns are ignored.
 * @throws BrickpostError USAGE for a pattern that cannot be read (an unclosed `[`, a trailing `\`)
 */
export function compileExcludes(patterns: readonly string[]): Excluder {
  const compiled: Compiled[] = [];
  for (const p of patterns) {
    if (p.trim() === '') continue;
    compiled.push(compile(p));
  }
  return {
    patterns,
    excludes(path, isDir) {
      for (const c of compiled) if ((!c.dirOnly || isDir) && c.re.test(path)) return true;
      return false;
    },
  };
}

/** Patterns of an exclude file: one per line; blank lines and lines starting with `#` are ignored; a trailing CR is dropped. */
export function parseExcludeFile(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

function compile(pattern: string): Compiled {
  let p = pattern;
  const dirOnly = p.endsWith('/') && !p.endsWith('\\/');
  if (dirOnly) p = p.replace(/\/+$/, '');
  const anchored = p.startsWith('/');
  p = p.replace(/^\/+/, '');
  if (p === '') throw new BrickpostError('USAGE', `exclude pattern ${quote(pattern)} names no file`);
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') {
      if (i + 1 >= p.length) throw new BrickpostError('USAGE', `exclude pattern ${quote(pattern)} ends in a lone backslash`);
      re += escape(p[++i]!);
    } else if (c === '*') {
      if (p[i + 1] === '*') {
        // `**/` matches zero or more folders; `**` elsewhere any run of characters, slashes included.
        if (p[i + 2] === '/') ((re += '(?:.*/)?'), (i += 2));
        else ((re += '.*'), i++);
      } else re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const end = p.indexOf(']', i + 2);
      if (end < 0) throw new BrickpostError('USAGE', `exclude pattern ${quote(pattern)} has a '[' without its ']'`);
      let set = p.slice(i + 1, end);
      const negate = set.startsWith('!') || set.startsWith('^');
      if (negate) set = set.slice(1);
      re += `[${negate ? '^/' : ''}${set.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else re += escape(c);
  }
  return { re: new RegExp(`^${anchored ? '' : '(?:.*/)?'}${re}$`, 's'), dirOnly };
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
