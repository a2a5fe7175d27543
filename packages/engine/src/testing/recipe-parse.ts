import { createHash } from 'node:crypto';

/** One word of a recipe line: bare, or a JSON string literal (`quoted`). */
export interface Word {
  text: string;
  quoted: boolean;
}

/** One recipe line: its command, words, trailing JSON object and raw remainder. */
export interface RecipeLine {
  n: number;
  cmd: string;
  words: Word[];
  /** A trailing `{…}` (the rest of the line), parsed with JSON.parse. */
  json?: Record<string, unknown>;
  /** Everything after the command and one space, verbatim. */
  rest: string;
}

/**
 * Splits a recipe body into lines (blank lines and `#` comments dropped).
 * Words are separated by spaces; a word starting with `"` is a JSON string
 * (so it may hold spaces, escapes, control characters); a `{` starts a
 * JSON object running to the end of the line. Throws Error on a bad line.
 */
export function parseRecipe(body: string): RecipeLine[] {
  const out: RecipeLine[] = [];
  body.split('\n').forEach((text, i) => {
    const n = i + 1;
    if (text.trim() === '' || text.trimStart().startsWith('#')) return;
    const cmd = /^\S+/.exec(text.trimStart())![0];
    const rest = text.trimStart().slice(cmd.length + 1);
    const line: RecipeLine = { n, cmd, words: [], rest };
    // A raw line is taken as it is.
    let s = cmd === 'raw' ? '' : rest;
    while ((s = s.trimStart()) !== '') {
      if (s[0] === '{') {
        line.json = JSON.parse(s) as Record<string, unknown>;
        break;
      }
      if (s[0] === '"') {
        const end = stringEnd(s);
        if (end < 0) throw new Error(`recipe line ${n}: unterminated string`);
        line.words.push({ text: JSON.parse(s.slice(0, end + 1)) as string, quoted: true });
        s = s.slice(end + 1);
      } else {
        const w = /^\S+/.exec(s)![0];
        line.words.push({ text: w, quoted: false });
        s = s.slice(w.length);
      }
    }
    out.push(line);
  });
  return out;
}

function stringEnd(s: string): number {
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
  }
  return -1;
}

/** An integer word; throws Error naming the line when it is not one. */
export function int(line: RecipeLine, k: number): number {
  const w = line.words[k];
  const v = Number(w?.text);
  if (!w || w.quoted || !Number.isSafeInteger(v)) throw new Error(`recipe line ${line.n}: word ${k + 1} of ${line.cmd} must be an integer`);
  return v;
}

/** A word; throws Error naming the line when it is missing. */
export function word(line: RecipeLine, k: number): string {
  const w = line.words[k];
  if (!w) throw new Error(`recipe line ${line.n}: ${line.cmd} needs at least ${k + 1} words`);
  return w.text;
}

/**
 * Bytes described by words from `k`: `"text"` (UTF-8), `random N`
 * (deterministic, seeded by `seed`), `zeros N`, `hex HEX`.
 */
export function content(line: RecipeLine, k: number, seed: string): Buffer {
  const w = line.words[k];
  if (w?.quoted) return Buffer.from(w.text, 'utf8');
  switch (w?.text) {
    case 'random':
      return pseudoRandom(seed, int(line, k + 1));
    case 'zeros':
      return Buffer.alloc(int(line, k + 1));
    case 'hex':
      return Buffer.from(word(line, k + 1), 'hex');
    default:
      throw new Error(`recipe line ${line.n}: expected "text", random N, zeros N or hex HEX`);
  }
}

/** `n` bytes of SHA-256 in counter mode over `seed`: random-looking, the same every run. */
export function pseudoRandom(seed: string, n: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  for (let i = 0, at = 0; at < n; i++, at += 32) {
    createHash('sha256').update(`${seed}/${i}`).digest().copy(out, at);
  }
  return out;
}
