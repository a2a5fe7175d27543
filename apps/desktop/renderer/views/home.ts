/** The start page: send or receive, and the other views. */
import { api } from '../api.js';
import { h } from '../ui/dom.js';

/** The start page; says so when this home has no keys yet. */
export function homeView(): HTMLElement {
  const keys = h('div', {});
  api()
    .whoami()
    .then((me) => {
      if (!me)
        keys.appendChild(
          h(
            'p',
            { class: 'banner warn' },
            'This computer has no keys yet. ',
            h('a', { href: '#/trust' }, 'Create them in Trust'),
            ' before sending or receiving.',
          ),
        );
      else keys.appendChild(h('p', { class: 'muted' }, `Signed in as ${me.name}.`));
    })
    .catch(() => undefined);
  return h(
    'div',
    { class: 'view', 'data-view': 'home' },
    h('h1', {}, 'brickpost'),
    h('p', {}, 'Move datasets on drives: signed, encrypted, checked on arrival.'),
    keys,
    h(
      'div',
      { class: 'tiles' },
      h(
        'a',
        { class: 'tile', href: '#/publish' },
        h('span', { class: 'tile-title' }, 'Send a dataset'),
        h('span', {}, 'Pack a folder onto one or more drives for your subscribers.'),
      ),
      h(
        'a',
        { class: 'tile', href: '#/receive' },
        h('span', { class: 'tile-title' }, 'Receive a drive'),
        h('span', {}, 'Check a drive that arrived and copy it into a folder.'),
      ),
      h(
        'a',
        { class: 'tile', href: '#/rebuild' },
        h('span', { class: 'tile-title' }, 'Rebuild a lost drive'),
        h('span', {}, 'Write a lost drive of a set onto a new one from the others.'),
      ),
      h(
        'a',
        { class: 'tile', href: '#/plan' },
        h('span', { class: 'tile-title' }, 'Plan'),
        h('span', {}, 'Ship drives or send over the network? Time for both.'),
      ),
    ),
  );
}
