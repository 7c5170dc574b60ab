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
  const b = h(
    'button',
    { class: cls, title, onClick, attrs: { type: 'button' } },
    label
  );
  return b;
}

/**
 * Append `items` to `parent` a page at a time: the first `pageSize` now, then a
 * "Show N more" button that appends the next page. Rendering work stays bounded by
 * what the user asked to see, whatever the length of `items`.
 */
export function appendPaged<T>(
  parent: HTMLElement,
  items: readonly T[],
  render: (item: T, index: number) => Node,
  pageSize: number,
  noun = 'more'
): void {
  let shown = 0;
  let more: HTMLElement | null = null;
  const next = () => {
    more?.remove();
    more = null;
    const end = Math.min(items.length, shown + pageSize);
    const frag = document.createDocumentFragment();
    for (; shown < end; shown++) {
      frag.appendChild(render(items[shown], shown));
    }
    if (shown < items.length) {
      const rest = items.length - shown;
      const b = button(
        `Show ${Math.min(rest, pageSize)} more (${rest} ${noun} not shown)`,
        next,
        'nbc-button nbc-small nbc-more'
      );
      more =
        parent.tagName === 'OL' || parent.tagName === 'UL'
          ? h('li', { class: 'nbc-more-item' }, b)
          : parent.tagName === 'TBODY'
            ? h(
                'tr',
                { class: 'nbc-more-item' },
                h('td', { attrs: { colspan: '99' } }, b)
              )
            : b;
      frag.appendChild(more);
    }
    parent.appendChild(frag);
  };
  next();
}

/**
 * A link that opens `url` in a new tab, or plain text when there is no url. Only
 * https URLs reach here (records are checked by `safeUrl` in ../records/parseparts).
 */
export function externalLink(
  url: string,
  label: string,
  title?: string
): HTMLElement {
  if (!url) {
    return h('span', null, label);
  }
  return h(
    'a',
    {
      class: 'nbc-link',
      title,
      attrs: { href: url, target: '_blank', rel: 'noopener noreferrer' }
    },
    label
  );
}
