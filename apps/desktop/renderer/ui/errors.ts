/**
 * Errors as plain sentences with the next step: the message, then the hint.
 * Never a stack trace, never markup from the message.
 */
import { h } from './dom.js';

/** Capitalised and ending with a full stop. */
export function sentence(s: string): string {
  const t = s.trim();
  if (!t) return '';
  const first = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

/** What went wrong and what to do, from any thrown value. */
export function describe(e: unknown): { message: string; hint: string | null; code: string } {
  if (typeof e === 'object' && e !== null) {
    const o = e as { message?: unknown; hint?: unknown; code?: unknown };
    const code = typeof o.code === 'string' ? o.code : 'INTERNAL';
    const message = typeof o.message === 'string' && o.message ? o.message : 'something went wrong';
    const hint =
      typeof o.hint === 'string' && o.hint
        ? o.hint
        : code === 'INTERNAL'
          ? 'try again; if it keeps failing, run the same step with the brickpost command to see more'
          : null;
    return { message: sentence(message.split('\n')[0]!), hint: hint ? sentence(hint) : null, code };
  }
  return { message: sentence(String(e)), hint: null, code: 'INTERNAL' };
}

/** An alert box for an error (role="alert" so screen readers announce it). */
export function errorBanner(e: unknown, title = 'That did not work'): HTMLElement {
  const d = describe(e);
  return h(
    'div',
    { class: 'banner error', role: 'alert', 'data-code': d.code },
    h('p', { class: 'banner-title' }, title),
    h('p', { class: 'banner-message' }, d.message),
    d.hint ? h('p', { class: 'banner-hint' }, h('strong', {}, 'What to do: '), d.hint) : null,
  );
}

/** A neutral or warning note. */
export function note(text: string, kind: 'info' | 'warn' = 'info'): HTMLElement {
  return h('p', { class: `banner ${kind}`, role: kind === 'warn' ? 'status' : null }, text);
}
