/**
 * Where a view puts code text: the sidebar passes its CodeMirror view (./codeview),
 * the inline renderer a plain `<pre>` (no editor per output). Both take text only.
 */

import { button, h } from './dom';

export interface ICodeSink {
  readonly node: HTMLElement;
  setText(text: string, mimeType: string, info?: string): void;
}

/** Characters a plain `<pre>` shows at first, and per "Show more". */
const PLAIN_PAGE = 20_000;

export class PlainCode implements ICodeSink {
  readonly node = h('div', { class: 'nbc-plaincode' });

  setText(text: string, _mimeType: string, info = ''): void {
    const pre = h('pre', null);
    this.node.replaceChildren(h('div', { class: 'nbc-meta' }, info), pre);
    let shown = 0;
    let more: HTMLElement | null = null;
    const next = () => {
      more?.remove();
      more = null;
      pre.appendChild(
        document.createTextNode(text.slice(shown, shown + PLAIN_PAGE))
      );
      shown = Math.min(text.length, shown + PLAIN_PAGE);
      const rest = text.length - shown;
      if (rest > 0) {
        more = button(
          `Show ${Math.min(rest, PLAIN_PAGE)} more characters (${rest} not shown)`,
          next,
          'nbc-button nbc-small nbc-more'
        );
        this.node.appendChild(more);
      }
    };
    next();
  }
}
