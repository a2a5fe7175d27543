/**
 * The pieces every standalone page of ours is made of: escaping of
 * untrusted text, number and date formats, and the page shell with its
 * inline style. No Node imports: the desktop renderer uses these too.
 */
import { humanByteRate, humanSize } from '../plan/units.js';

/**
 * Characters shown as a visible `⟨U+XXXX⟩` instead of themselves: controls
 * (except tab, line feed and carriage return), lone surrogates and
 * noncharacters (HTML parse errors), and bidirectional controls (they can
 * make a name read as another).
 */
const INVISIBLE = /[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}\p{Bidi_Control}]/gu;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text (from a drive, so untrusted) as HTML text or attribute value. */
export function esc(value: string | number | null | undefined): string {
  const s = value === null || value === undefined ? '' : String(value);
  return s
    .replace(INVISIBLE, (c) => (c === '\t' || c === '\n' || c === '\r' ? c : `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`))
    .replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** 1234567 → "1,234,567". */
export function count(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Bytes in SI units (MB = 10^6 bytes), as everywhere in brickpost's output. */
export function bytes(n: number): string {
  return humanSize(n);
}

/** A rate in SI units: `45.2 MB/s`. */
export function rate(bytesPerSecond: number): string {
  return humanByteRate(bytesPerSecond);
}

/** Seconds, to the millisecond below 10 s. */
export function seconds(s: number): string {
  return s < 10 ? `${s.toFixed(3)} s` : `${s.toFixed(1)} s`;
}

/** An ISO 8601 time as "YYYY-MM-DD hh:mm:ss UTC"; anything else as given. */
export function when(iso: string | null): string {
  if (iso === null) return '';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

/** A table; cells are HTML already escaped by the caller. */
export function table(head: string[], rows: string[][], cls = ''): string {
  const th = head.map((h) => `<th scope="col">${h}</th>`).join('');
  // data-label names the column for the stacked layout of narrow screens (and zoom).
  const labels = head.map((h) => h.replace(/<[^>]*>/g, '').replace(/"/g, '&quot;'));
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td data-label="${labels[i] ?? ''}">${c}</td>`).join('')}</tr>`).join('\n');
  return `<table${cls ? ` class="${cls}"` : ''}><thead><tr>${th}</tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

/** A list of facts, `term: value` pairs; values are HTML already escaped. */
export function facts(pairs: Array<[string, string]>): string {
  return `<dl class="facts">${pairs.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

const BASE_CSS = `
:root { color-scheme: light; --ok: #1a7f37; --ok-bg: #dafbe1; --bad: #b42318; --bad-bg: #ffebe9; --warn: #7d4e00; --warn-bg: #fff8c5; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; margin: 0 auto; padding: 1.5rem; max-width: 62rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
p { margin: .5rem 0; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--line); overflow-wrap: break-word; }
td code { word-break: break-all; }
td .id { overflow-wrap: anywhere; }
th { font-weight: 600; background: #f6f8fa; }
td.num, th.num { text-align: right; white-space: nowrap; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
code, .id { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .92em; overflow-wrap: anywhere; }
.good { color: var(--ok); font-weight: 600; }
.bad { color: var(--bad); font-weight: 600; }
.warn { color: var(--warn); font-weight: 600; }
.muted { color: var(--muted); }
footer { margin-top: 2rem; color: var(--muted); font-size: .85rem; }
@media screen and (max-width: 40rem) {
  body { padding: .75rem; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .4rem; }
  table, tbody, tr, td { display: block; width: 100%; }
  thead { display: none; }
  tr { border-bottom: 1px solid var(--line); padding: .3rem 0; }
  td { border: 0; padding: .1rem 0; }
  td::before { content: attr(data-label); display: block; color: var(--muted); font-size: .85rem; }
  td:empty { display: none; }
}
@media print {
  @page { size: A4; margin: 14mm 12mm; }
  body { padding: 0; max-width: none; font-size: 10pt; }
  h2 { break-after: avoid; }
  tr, .verdict, .label { break-inside: avoid; }
  * { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
`;

/**
 * A whole standalone HTML document: inline style only, no script, and a
 * Content-Security-Policy that forbids loading anything (scripts, fonts,
 * images other than data: URLs), so nothing in it can reach the network.
 */
export function page(title: string, body: string, css = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title>
<style>${BASE_CSS}${css}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
