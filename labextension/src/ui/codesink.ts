/**
 * Where a view puts code text: the sidebar passes its CodeMirror view (./codeview),
 * the inline renderer a plain `<pre>` (no editor per output). Both take text only.
 */

import { h } from './dom';

export interface ICodeSink {
  readonly node: HTMLElement;
  setText(text: string, mimeType: string, info?: string): void;
}

/** Characters a plain `<pre>` shows (the sidebar's code view has the rest). */
const PLAIN_MAX = 100_000;

export class PlainCode implements ICodeSink {
  readonly node = h('div', { class: 'nbc-plaincode' });

  setText(text: string, _mimeType: string, info = ''): void {
    const more = text.length - PLAIN_MAX;
    this.node.replaceChildren(
      h('div', { class: 'nbc-meta' }, info),
      h('pre', null, more > 0 ? text.slice(0, PLAIN_MAX) : text)
    );
    if (more > 0) {
      this.node.appendChild(h('div', { class: 'nbc-meta' }, `${more} more characters: the Compile inspector shows them all`));
    }
  }
}
