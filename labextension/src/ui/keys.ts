/**
 * Keys a view handles itself stay in it, in every front end. A handler stops the key's
 * propagation (front ends that take shortcuts as keys bubble up: JupyterLab); the node
 * that handles keys is marked with them, and one listener per window, at the window's
 * capture phase, marks such a key handled (`preventDefault`) before a front end that
 * takes shortcuts while keys go down (Notebook 7: Lumino's command registry at the
 * document's capture phase, which skips handled keys) moves the notebook's cell.
 */

const guarded = new WeakSet<Window>();

/** Keys `node` and its descendants handle (`KeyboardEvent.key` values, no modifiers). */
export function keepKeys(node: HTMLElement, keys: readonly string[]): void {
  node.dataset.nbcKeys = keys.join(' ');
  const win = node.ownerDocument.defaultView;
  if (win && !guarded.has(win)) {
    guarded.add(win);
    win.addEventListener('keydown', guard, true);
  }
}

/** A key a handler took: it goes no further (bubbling listeners, the host's shortcuts). */
export function handled(ev: KeyboardEvent): void {
  ev.preventDefault();
  ev.stopPropagation();
}

function guard(ev: KeyboardEvent): void {
  if (ev.ctrlKey || ev.altKey || ev.metaKey) {
    return;
  }
  const target = ev.target instanceof Element ? ev.target : null;
  const owner = target?.closest<HTMLElement>('[data-nbc-keys]');
  const keys = owner?.dataset.nbcKeys?.split(' ') ?? [];
  if (keys.includes(ev.key === ' ' ? 'Space' : ev.key)) {
    ev.preventDefault();
  }
}
