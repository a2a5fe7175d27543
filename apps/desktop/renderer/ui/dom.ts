/**
 * A small element builder. Strings become text nodes, never markup: values
 * shown in the app come from drives and are untrusted.
 */

export type Child = Node | string | number | null | undefined | false;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler of any event type
export type Props = Record<string, string | number | boolean | null | undefined | ((ev: any) => void)>;

/**
 * Creates an element. `props`: `class`, any attribute (true sets it empty,
 * false/null/undefined leaves it out), and `on…` event handlers.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (v === true) el.setAttribute(k, '');
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, String(v));
  }
  append(el, ...children);
  return el;
}

/** Appends children (strings as text). */
export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces every child of `el`. */
export function replace(el: Node, ...children: Child[]): void {
  while (el.firstChild) el.removeChild(el.firstChild);
  append(el, ...children);
}

/** A `<dl>` of label/value pairs (values as text). */
export function facts(pairs: Array<[string, Child]>, props: Props = {}): HTMLDListElement {
  const dl = h('dl', { class: 'facts', ...props });
  for (const [k, v] of pairs) append(dl, h('dt', {}, k), h('dd', {}, v));
  return dl;
}

let counter = 0;
/** A document-unique id for label/for pairs. */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** A unique job id for a long API call. */
export function jobId(): string {
  return typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `job-${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

/**
 * A captioned table in a focusable scroll region. Each cell carries its
 * column name (data-label), so narrow windows can show rows as stacked cards.
 */
export function dataTable(caption: string, headers: string[], rows: Array<{ props?: Props; cells: Child[] }>): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      { class: 'stack' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...rows.map((r) => h('tr', r.props ?? {}, ...r.cells.map((c, i) => h('td', { 'data-label': headers[i] ?? '' }, c))))),
    ),
  );
}
