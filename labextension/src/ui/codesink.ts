/**
 * Where a view puts code text: the sidebar passes its CodeMirror view (./codeview),
 * the inline renderer a plain `<pre>` (no editor per output), the inline inspector
 * widget its DOM line view (./linecode). All take text only.
 */

import { button, h } from './dom';

export interface ICodeSink {
  readonly node: HTMLElement;
  setText(text: string, mimeType: string, info?: string): void;
}

/** A code view a section keeps between renders (it is told when shown again). */
export interface ICodeView extends ICodeSink {
  /** Call after the node was (re)attached to the document. */
  refresh(): void;
  /** Told the query the user searches this view for, as it changes ('' when cleared). */
  onSearch: ((query: string) => void) | null;
  /** Search for `query` and show its match on 1-based `line` of the text shown. */
  find(query: string, line: number): void;
}

/**
 * The code pane of the source-and-kernels view: text with per-line classes, and the
 * line the user moved to. The sidebar's tab uses CodeMirror, the widget ./linecode.
 */
export interface ICodePane {
  readonly node: HTMLElement;
  /** Show `text` (a new text starts at its top). */
  setText(text: string, mimeType: string): void;
  /** Number of lines of the text shown. */
  readonly lineCount: number;
  /** Replace every line's mark: 1-based line -> CSS classes. */
  markLines(marks: ReadonlyMap<number, string>): void;
  /** Scroll so that 1-based `line` is at the top. */
  scrollToLine(line: number): void;
  /** Called with the 1-based line the user moved to (click, keys). */
  onLine: ((line: number) => void) | null;
  refresh(): void;
  dispose(): void;
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
