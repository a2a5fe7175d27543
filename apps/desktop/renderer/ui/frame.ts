/**
 * Standalone HTML documents (reports, labels) shown in a sandboxed frame:
 * no scripts run in it, so a report's content (names from a drive) can do
 * nothing. Same-origin only so the Print button can print the frame.
 */
import { h } from './dom.js';

/** A sandboxed frame showing `html`, titled for screen readers. */
export function documentFrame(html: string, title: string, kind: 'report' | 'label'): HTMLIFrameElement {
  const f = h('iframe', { class: `doc-frame ${kind}`, title, sandbox: 'allow-same-origin allow-modals', 'data-frame': kind });
  f.srcdoc = html;
  return f;
}

/** A Print button for a frame. */
export function printButton(frame: HTMLIFrameElement, label = 'Print'): HTMLButtonElement {
  return h('button', { type: 'button', class: 'secondary', onclick: () => frame.contentWindow?.print() }, label);
}
