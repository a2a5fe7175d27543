/**
 * Checks of the standalone HTML documents brickpost writes (reports and
 * drive labels): they parse as HTML with no parse error, run no script,
 * load nothing from anywhere, and show hostile values as text.
 */
import assert from 'node:assert/strict';
import { parse, type DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/** The document's elements, depth first (template contents and foreign content included). */
export function elements(html: string): Element[] {
  const errors: string[] = [];
  const doc = parse(html, {
    sourceCodeLocationInfo: true,
    onParseError: (e) => errors.push(`${e.code} at line ${e.startLine} col ${e.startCol}`),
  });
  assert.deepEqual(errors, [], 'the document parses with no HTML parse error');
  const out: Element[] = [];
  const walk = (n: Node): void => {
    if ('tagName' in n) out.push(n);
    if ('childNodes' in n) for (const c of n.childNodes) walk(c);
  };
  walk(doc);
  return out;
}

/** All text of the document's body, as a reader sees it (entities decoded). */
export function bodyText(html: string): string {
  const body = elements(html).find((e) => e.tagName === 'body');
  assert.ok(body, 'the document has a body');
  const parts: string[] = [];
  const walk = (n: Node): void => {
    if (n.nodeName === '#text') parts.push((n as DefaultTreeAdapterMap['textNode']).value);
    if ('childNodes' in n) for (const c of n.childNodes) walk(c);
  };
  walk(body);
  return parts.join('');
}

/**
 * Asserts the document is standalone and inert: a doctype, no script, no
 * event handler attribute, no element loading anything (src, href, srcset,
 * action, poster, data on any element), no `url()` or `@import` in its style.
 */
export function assertStandalone(html: string): Element[] {
  assert.match(html, /^<!DOCTYPE html>/i);
  const els = elements(html);
  for (const e of els) {
    assert.notEqual(e.tagName, 'script', 'no script element');
    assert.ok(!['iframe', 'object', 'embed', 'link', 'img', 'base', 'form'].includes(e.tagName), `no <${e.tagName}> element`);
    for (const a of e.attrs) {
      assert.ok(!/^on/i.test(a.name), `no event handler attribute (${a.name} on <${e.tagName}>)`);
      assert.ok(
        !['src', 'href', 'srcset', 'action', 'poster', 'data', 'xlink:href'].includes(a.name.toLowerCase()),
        `no ${a.name} attribute on <${e.tagName}>`,
      );
    }
  }
  const styles = els.filter((e) => e.tagName === 'style').map((e) => e.childNodes.map((c) => (c as DefaultTreeAdapterMap['textNode']).value).join(''));
  for (const css of styles) assert.doesNotMatch(css, /url\(|@import/i, 'the style loads nothing');
  assert.doesNotMatch(html, /https?:\/\//i, 'no http(s) URL anywhere in the document');
  return els;
}
