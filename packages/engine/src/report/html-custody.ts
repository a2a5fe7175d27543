import type { CustodyReport } from '../api/custody.js';
import { esc, table, when } from './html-kit.js';

const SOURCE: Record<string, string> = { drive: 'drive log', bag: 'signed bag', catalog: 'this home only' };

/**
 * The custody log as a table, one row per event: position, time, event,
 * actor, key id, whether the key is trusted here, and whether the event is
 * signed and chained (and where it was read); then whether the chain holds.
 */
export function custodySection(c: CustodyReport | null): string {
  if (c === null) return '<h2>Custody log</h2><p class="muted">No custody log to show (see the notes).</p>';
  const rows = c.events.map((e) => {
    const broken = c.brokenAt !== null && e.n >= c.brokenAt;
    const chain = !e.valid
      ? '<span class="bad">FAILS its checks</span>'
      : broken
        ? '<span class="bad">after the break</span>'
        : '<span class="good">signed, chained</span>';
    return [
      String(e.n),
      esc(when(e.at)),
      esc(e.type),
      esc(e.actor.name),
      `<span class="id">${esc(e.actor.keyId)}</span>`,
      e.actor.trusted ? `<span class="good">yes</span>${e.actor.trustedAs !== null ? ` (${esc(e.actor.trustedAs)})` : ''}` : '<span class="warn">no</span>',
      `${chain}<br><span class="muted">${esc(SOURCE[e.source] ?? e.source)}</span>`,
    ];
  });
  const where = c.drive !== null ? ` of drive ${esc(c.drive)}` : '';
  const verdict = c.ok
    ? `<p class="good">The chain${where} holds: ${c.events.length} event${c.events.length === 1 ? '' : 's'}, each signed by its actor and chained to the one before.</p>`
    : `<p class="bad">The chain${where} does not hold${c.brokenAt !== null ? `: broken at event ${c.brokenAt}` : ''}.</p>`;
  const problems =
    c.problems.length > 0
      ? `<ul>${c.problems.map((p) => `<li><code>${esc(p.code)}</code> ${p.n !== undefined ? `event ${p.n}: ` : ''}${esc(p.message)}</li>`).join('')}</ul>`
      : '';
  return `<h2>Custody log</h2>${verdict}${problems}${table(['#', 'Time', 'Event', 'Actor', 'Key id', 'Trusted', 'Chain and signature'], rows)}`;
}
