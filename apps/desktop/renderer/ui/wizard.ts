/**
 * A wizard: numbered steps, one shown at a time under its own heading. Steps
 * share a state object and move on with `next()`; the heading takes focus on
 * every move so keyboard and screen-reader users land on the new step. A
 * wizard whose path forks takes its steps as a function of the state: the
 * list is read again on every move.
 */
import { h, replace, type Child } from './dom.js';
import { errorBanner } from './errors.js';

export interface StepContext<S> {
  state: S;
  next: () => void;
  back: () => void;
  goto: (id: string) => void;
}

export interface Step<S> {
  /** Stable name, the section's data-step attribute. */
  id: string;
  title: string;
  /** Builds the step's body; may be async (it then shows "Loading…" first). */
  render(ctx: StepContext<S>): HTMLElement | Promise<HTMLElement>;
}

/** Builds a wizard element; `name` becomes its data-wizard attribute. */
export function wizard<S>(name: string, title: string, stepsOf: Step<S>[] | ((state: S) => Step<S>[]), state: S): HTMLElement {
  const current = (): Step<S>[] => (typeof stepsOf === 'function' ? stepsOf(state) : stepsOf);
  const list = h('ol', { class: 'steps' });
  const body = h('div', { class: 'step-body' });
  const heading = h('h2', { tabindex: -1, class: 'step-heading' });
  const section = h('section', { class: 'step', 'aria-labelledby': 'step-heading' }, heading, body);
  heading.id = 'step-heading';
  let index = 0;
  let generation = 0;

  const ctx: StepContext<S> = {
    state,
    next: () => void show(Math.min(index + 1, current().length - 1)),
    back: () => void show(Math.max(index - 1, 0)),
    goto: (id) =>
      void show(
        Math.max(
          0,
          current().findIndex((s) => s.id === id),
        ),
      ),
  };

  async function show(i: number): Promise<void> {
    index = i;
    const gen = ++generation;
    const steps = current();
    const step = steps[i]!;
    replace(list, ...steps.map((s) => h('li', { 'aria-current': s === step ? 'step' : null, class: steps.indexOf(s) < i ? 'done' : null }, s.title)));
    section.setAttribute('data-step', step.id);
    replace(heading, `Step ${i + 1} of ${steps.length}: ${step.title}`);
    replace(body, h('p', { class: 'muted' }, 'Loading…'));
    let content: HTMLElement;
    try {
      content = await step.render(ctx);
    } catch (e) {
      content = h(
        'div',
        {},
        errorBanner(e),
        i > 0 ? h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => ctx.back() }, 'Back')) : null,
      );
    }
    if (gen !== generation) return;
    replace(body, content);
    heading.focus();
  }

  void show(0);
  return h('div', { class: 'wizard', 'data-wizard': name }, h('h1', {}, title), h('nav', { 'aria-label': 'Steps' }, list), section);
}

/** A row of buttons at the end of a step. */
export function actions(...buttons: Child[]): HTMLElement {
  return h('div', { class: 'actions' }, ...buttons);
}

/** The step's main button. */
export function primary(label: string, onclick: () => void): HTMLButtonElement {
  return h('button', { type: 'button', class: 'primary', 'data-primary': true, onclick }, label);
}

/** A secondary button. */
export function secondary(label: string, onclick: () => void): HTMLButtonElement {
  return h('button', { type: 'button', class: 'secondary', onclick }, label);
}

/**
 * Runs an action from a button: disables it while running, shows a failure
 * in `slot` as a plain sentence. Resolves to the result, or undefined on failure.
 */
export async function busy<T>(button: HTMLButtonElement, slot: HTMLElement, fn: () => Promise<T>, what = 'That did not work'): Promise<T | undefined> {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  replace(slot);
  try {
    return await fn();
  } catch (e) {
    replace(slot, errorBanner(e, what));
    return undefined;
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}
