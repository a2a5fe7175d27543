/**
 * The desktop renderer: plain DOM, no framework. A hash router shows one
 * view at a time: #/publish and #/receive (the wizards), #/history, #/subscribers, #/trust,
 * #/plan, #/rebuild, and the start page. Everything it knows comes from `window.brickpost`
 * (apps/desktop/src/shared/api.ts); values from drives are shown as text only.
 */
import type { S3Options } from '@brickpost/engine/api';
import { ready } from './api.js';
import { publishView } from './publish/index.js';
import { receiveView } from './receive/index.js';
import { h, replace } from './ui/dom.js';
import { errorBanner } from './ui/errors.js';
import { historyView, homeView, planView, rebuildView, subscribersView, trustView } from './views/index.js';

const NAV: Array<[string, string]> = [
  ['#/publish', 'Send'],
  ['#/receive', 'Receive'],
  ['#/history', 'History'],
  ['#/subscribers', 'Subscribers'],
  ['#/trust', 'Trust'],
  ['#/plan', 'Plan'],
];

/** How to reach a bucket named in #/history's address (endpoint=…, profile=…), when given. */
function historyS3(params: URLSearchParams): S3Options | undefined {
  const endpointUrl = params.get('endpoint');
  const profile = params.get('profile');
  if (!endpointUrl && !profile) return undefined;
  return { ...(endpointUrl ? { endpointUrl } : {}), ...(profile ? { profile } : {}) };
}

function route(main: HTMLElement, nav: HTMLElement): void {
  const [path, query] = (location.hash || '#/').split('?') as [string, string | undefined];
  const params = new URLSearchParams(query ?? '');
  for (const a of nav.querySelectorAll('a')) {
    if (a.getAttribute('href') === path) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  let view: HTMLElement;
  try {
    switch (path) {
      case '#/publish':
        view = publishView();
        break;
      case '#/receive':
        view = receiveView();
        break;
      case '#/history':
        view = historyView(params.get('dest') ?? '', historyS3(params));
        break;
      case '#/subscribers':
        view = subscribersView();
        break;
      case '#/trust':
        view = trustView();
        break;
      case '#/plan':
        view = planView(Number(params.get('bytes')) || undefined);
        break;
      case '#/rebuild':
        view = rebuildView(params.getAll('drive'));
        break;
      default:
        view = homeView();
    }
  } catch (e) {
    view = errorBanner(e);
  }
  replace(main, view);
  const title = NAV.find(([href]) => href === path)?.[1];
  document.title = title ? `${title} · brickpost` : 'brickpost';
}

async function start(): Promise<void> {
  const main = document.getElementById('main')!;
  const nav = document.getElementById('nav')!;
  replace(nav, h('a', { href: '#/', class: 'brand' }, 'brickpost'), ...NAV.map(([href, text]) => h('a', { href }, text)));
  try {
    await ready();
  } catch (e) {
    replace(main, errorBanner(e, 'brickpost is not connected'));
    return;
  }
  window.addEventListener('hashchange', () => route(main, nav));
  route(main, nav);
  document.body.setAttribute('data-ready', 'true');
}

void start();
