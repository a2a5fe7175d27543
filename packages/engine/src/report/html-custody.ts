import type { CustodyReport } from '../api-custody.js';
import { esc, table, when } from './html-kit.js';

/** The custody log as a table, one row per event, and whether the chain holds. */
export function custodySection(c: CustodyReport | null): string {
  if (c === null) return '<h2>Custody log</h2><p class="muted">No custody log to show (see the notes).</p>';
  const rows = c.events.map((e) => {
    const broken = c.brokenAt !== null && e.n >= c.brokenAt;
    return [
      String(e.n),
      esc(when(e.at)),
      esc(e.type),
      esc(e.actor.name),
      `<span class="id">${esc(e.actor.keyId)}</span>`,
      broken ? `<span class="bad">${e.n === c.brokenAt ? 'BROKEN here' : 'after the break'}</span>` : '<span class="good">chained</span>',
    ];
  });
  const verdict = c.ok
    ? `<p class="good">The chain of ${c.events.length} events holds: every event is signed by its actor and chained to the one before.</p>`
    : `<p class="bad">The chain does not hold${c.brokenAt !== null ? ` from event ${c.brokenAt}` : ''}.</p>`;
  const problems = c.problems.length > 0 ? `<ul>${c.problems.map((p) => `<li><code>${esc(p.code)}</code> ${esc(p.message)}</li>`).join('')}</ul>` : '';
  return `<h2>Custody log</h2>${verdict}${problems}${table(['#', 'Time', 'Event', 'Actor', 'Key id', 'Chain'], rows)}`;
}
