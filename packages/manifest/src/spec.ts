import { readFileSync } from 'node:fs';

/** The normative format specification (FORMAT.md), copied onto every drive. */
export function formatSpec(): string {
  return readFileSync(new URL('../../FORMAT.md', import.meta.url), 'utf8');
}
