/**
 * A tiny DOM builder. Text always goes in through `textContent`: record strings
 * (user source, reasons, generated code) are untrusted and never parsed as HTML.
 */

export type Child = Node | string | number | null | undefined | false;

export interface IAttrs {
  class?: string;
  title?: string;
  /** data-* attributes (values are set as attribute text). */
  data?: Record<string, string>;
  /** Other attributes; only static, non-record values are passed here. */
  attrs?: Record<string, string>;
  onClick?: (ev: MouseEvent) => void;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: IAttrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    if (attrs.class) {
      el.className = attrs.class;
    }
    if (attrs.title) {
      el.title = attrs.title;
    }
    if (attrs.data) {
      for (const [k, v] of Object.entries(attrs.data)) {
        el.dataset[k] = v;
      }
    }
    if (attrs.attrs) {
      for (const [k, v] of Object.entries(attrs.attrs)) {
        el.setAttribute(k, v);
      }
    }
    if (attrs.onClick) {
      const fn = attrs.onClick;
      el.addEventListener('click', ev => fn(ev as MouseEvent));
    }
  }
  append(el, ...children);
  return el;
}

export function append(el: HTMLElement, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) {
      continue;
    }
    el.appendChild(
      typeof c === 'string' || typeof c === 'number'
        ? document.createTextNode(String(c))
        : c
    );
  }
}

/** A button element (type=button, so it never submits anything). */
export function button(
  label: Child,
  onClick: (ev: MouseEvent) => void,
  cls = 'nbc-button',
  title?: string
): HTMLButtonElement {
  const b = h('button', { class: cls, title, onClick, attrs: { type: 'button' } }, label);
  return b;
}
