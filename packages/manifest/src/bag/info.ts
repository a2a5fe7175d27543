/**
 * Bag metadata, bag-info.txt (RFC 8493 §2.2.2): ordered "Label: value"
 * elements; a label has no colon and no surrounding whitespace; a long value
 * continues on following lines indented with spaces or tabs. brickpost keeps
 * the line break of a continuation and drops its indentation, so a value
 * `"a\nb"` is written as `"Label: a"` + `"  b"` and reads back as `"a\nb"`.
 */

import { BrickpostError, quote } from '../errors.js';
import { tagLines } from './lines.js';

/** Largest bag-info.txt accepted. */
export const MAX_BAG_INFO_BYTES = 1024 * 1024;
/** Most metadata elements accepted in one bag-info.txt. */
export const MAX_BAG_INFO_FIELDS = 10_000;

const FILE = 'bag-info.txt';
// Tab is linear whitespace and allowed inside values and labels.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

function labelProblem(label: string): string | undefined {
  if (label === '') return 'empty label';
  if (label.includes(':')) return 'label contains a colon';
  if (label.trim() !== label) return 'label starts or ends with whitespace';
  if (CONTROL.test(label)) return 'label contains control characters';
  return undefined;
}

function segmentProblem(segment: string): string | undefined {
  if (segment.trim() !== segment) return 'value line starts or ends with whitespace';
  if (CONTROL.test(segment)) return 'value contains control characters';
  return undefined;
}

/**
 * The text of bag-info.txt for `fields`, in order. A value may hold line
 * feeds (written as continuation lines). Throws USAGE on a bad label, or a
 * value line that is empty inside a value, starts or ends with whitespace,
 * or holds other control characters.
 */
export function formatBagInfo(fields: ReadonlyArray<readonly [string, string]>): string {
  let out = '';
  for (const [label, value] of fields) {
    const bad = labelProblem(label);
    if (bad !== undefined) throw new BrickpostError('USAGE', `bag-info.txt: ${bad}: ${quote(label)}`);
    const segments = value.split('\n');
    for (const [i, segment] of segments.entries()) {
      const problem = segment === '' && segments.length > 1 ? 'empty value line' : segmentProblem(segment);
      if (problem !== undefined) throw new BrickpostError('USAGE', `bag-info.txt ${label}: ${problem}: ${quote(value)}`);
      out += i === 0 ? `${label}: ${segment}\n` : `  ${segment}\n`;
    }
  }
  return out;
}

/**
 * Reads bag-info.txt into ordered [label, value] pairs (labels as written;
 * RFC 8493 reserved labels are case-insensitive, compare accordingly).
 * Strict: every line is "Label: value" (one space or tab after the colon)
 * or a continuation of the previous element; no blank lines. Throws
 * MALFORMED with the line number, LIMIT_EXCEEDED past MAX_BAG_INFO_BYTES or
 * MAX_BAG_INFO_FIELDS, and the errors of tag file decoding.
 */
export function parseBagInfo(input: string | Buffer): Array<[string, string]> {
  const lines = tagLines(input, FILE, MAX_BAG_INFO_BYTES);
  const fields: Array<[string, string]> = [];
  const malformed = (n: number, why: string, line: string): BrickpostError =>
    new BrickpostError('MALFORMED', `${FILE} line ${n}: ${why}: ${quote(line)}`, { path: FILE });
  for (const [i, line] of lines.entries()) {
    const n = i + 1;
    if (line.startsWith(' ') || line.startsWith('\t')) {
      const last = fields[fields.length - 1];
      if (last === undefined) throw malformed(n, 'continuation line before any element', line);
      const segment = line.replace(/^[ \t]+/, '');
      const bad = segment === '' ? 'blank continuation line' : segmentProblem(segment);
      if (bad !== undefined) throw malformed(n, bad, line);
      last[1] += '\n' + segment;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon < 0) throw malformed(n, line === '' ? 'blank line' : 'no colon', line);
    const label = line.slice(0, colon);
    const badLabel = labelProblem(label);
    if (badLabel !== undefined) throw malformed(n, badLabel, line);
    const rest = line.slice(colon + 1);
    if (rest !== '' && rest[0] !== ' ' && rest[0] !== '\t') throw malformed(n, 'no whitespace after the colon', line);
    const value = rest.slice(1);
    const badValue = segmentProblem(value);
    if (badValue !== undefined) throw malformed(n, badValue, line);
    if (fields.length === MAX_BAG_INFO_FIELDS) {
      throw new BrickpostError('LIMIT_EXCEEDED', `${FILE} has more than ${MAX_BAG_INFO_FIELDS} elements`, { path: FILE });
    }
    fields.push([label, value]);
  }
  return fields;
}
