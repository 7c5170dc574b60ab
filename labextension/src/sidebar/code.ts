/**
 * The "Generated code" section: the code pieces of a target (each with the compile it came
 * from, in the record's words) and a code view of one. A search in the code view covers
 * every code piece: the pieces that hold it are listed with their lines, each a way there.
 */

import { appendPaged, button, h } from '../ui/dom';
import { findPieces, lineOf } from '../ui/findlines';
import {
  classSuffix,
  clip,
  editorMimeType,
  formatSize,
  languageLabel,
  plural
} from '../ui/format';
import { IKernel } from '../model/parts';
import { ITargetRecord } from '../model/target';
import { ISectionHost, PAGE, Section } from './section';

/** Code pieces listed for a search, and lines listed per piece. */
const FOUND_PIECES = 50;
const FOUND_LINES = 3;

export class CodeSection extends Section {
  constructor(host: ISectionHost) {
    super(host, 'code', 'Generated code', true);
  }

  refresh(): void {
    this.host.codeView('code').refresh();
  }

  /** Show the first kernel of compile `compileId`. */
  showCompile(t: ITargetRecord, compileId: string): void {
    const i = t.kernels.findIndex(
      k => k.compile_id === compileId && k.kind === 'kernel'
    );
    const any = t.kernels.findIndex(k => k.compile_id === compileId);
    if (i >= 0 || any >= 0) {
      this._selected.set(t.id, i >= 0 ? i : any);
    }
    this.show();
  }

  protected count(t: ITargetRecord): number {
    return t.kernels.length;
  }

  protected render(t: ITargetRecord): HTMLElement {
    const wrap = h('div', { class: 'nbc-code' });
    if (!t.kernels.length && !t.output_code) {
      wrap.appendChild(
        h(
          'p',
          { class: 'nbc-muted' },
          t.status === 'pending'
            ? 'No code yet: it is generated at the first call.'
            : t.status === 'compiled_inside'
              ? `Its code is part of ${t.compiled_inside}'s generated code.`
              : 'No generated code was captured.'
        )
      );
      return wrap;
    }
    // -1 = the whole output code; otherwise an index into t.kernels.
    let selected = this._selected.get(t.id);
    if (
      selected === undefined ||
      selected >= t.kernels.length ||
      (selected < 0 && !t.output_code)
    ) {
      const firstKernel = t.kernels.findIndex(k => k.kind === 'kernel');
      selected = firstKernel >= 0 ? firstKernel : t.output_code ? -1 : 0;
    }
    const view = this.host.codeView('code');
    const found = h('div', { class: 'nbc-code-found' });
    const tbody = h('tbody');
    const rows = new Map<number, HTMLElement>();
    let current = selected;
    const show = (index: number) => {
      this._selected.set(t.id, index);
      rows.get(current)?.classList.remove('nbc-selected');
      rows.get(index)?.classList.add('nbc-selected');
      current = index;
      if (index < 0) {
        view.setText(t.output_code, 'text/x-python', 'whole output code');
      } else {
        const k = t.kernels[index];
        view.setText(
          k.source,
          editorMimeType(k.language),
          `${clip(k.name, 200)} · ${clip(languageLabel(k.language), 50)}` +
            (k.compile_label ? ` · ${clip(k.compile_label, 100)}` : '')
        );
      }
      if (this._query) {
        this._renderFound(found, t, this._query, index, go);
      }
    };
    const go = (index: number, line: number) => {
      show(index);
      view.find(this._query, line);
    };
    view.onSearch = query => {
      this._query = query;
      this._renderFound(found, t, query, current, go);
    };
    if (t.output_code) {
      const all = h(
        'tr',
        {
          class: 'nbc-kernel-row nbc-all-code',
          data: { index: '-1' },
          onClick: () => show(-1)
        },
        h('td', { attrs: { colspan: '2' } }, 'whole output code'),
        h('td', { class: 'nbc-num' }, formatSize(t.output_code.length))
      );
      rows.set(-1, all);
      tbody.appendChild(all);
    }
    const kernelRow = (k: IKernel, i: number) => {
      const language = clip(languageLabel(k.language), 50);
      const tr = h(
        'tr',
        {
          class:
            `nbc-kernel-row nbc-kind-${classSuffix(k.kind)}` +
            (i === current ? ' nbc-selected' : ''),
          data: { index: String(i) },
          onClick: () => show(i)
        },
        h(
          'td',
          { class: 'nbc-kernel-name' },
          h('span', { class: 'nbc-kernel-title' }, clip(k.name, 300)),
          k.compile_label
            ? h(
                'span',
                { class: 'nbc-kernel-compile' },
                clip(k.compile_label, 100)
              )
            : null
        ),
        h(
          'td',
          {
            class: 'nbc-kernel-type',
            title: `${language} ${clip(k.kind, 50)}`
          },
          k.kind === 'kernel' ? language : clip(k.kind, 50)
        ),
        h('td', { class: 'nbc-num' }, formatSize(k.size))
      );
      rows.set(i, tr);
      return tr;
    };
    appendPaged(tbody, t.kernels, kernelRow, PAGE, 'code pieces');
    const table = h(
      'table',
      { class: 'nbc-kernels' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, 'kernel'),
          h('th', null, 'type'),
          h('th', { class: 'nbc-num' }, 'size')
        )
      ),
      tbody
    );
    if (this.host.openTab && t.kernels.some(k => k.kind !== 'wrapper')) {
      wrap.appendChild(
        button(
          'Open source ↔ kernels in a tab',
          () => this.host.openTab?.(t),
          'nbc-button nbc-small nbc-open-tab',
          'The source and the generated code side by side, with the line mapping'
        )
      );
    }
    wrap.appendChild(h('div', { class: 'nbc-kernels-wrap' }, table));
    wrap.appendChild(found);
    wrap.appendChild(view.node);
    show(selected);
    return wrap;
  }

  /** The code pieces holding `query`, each with its first lines: a click goes there. */
  private _renderFound(
    node: HTMLElement,
    t: ITargetRecord,
    query: string,
    shown: number,
    go: (index: number, line: number) => void
  ): void {
    if (!query) {
      node.replaceChildren();
      return;
    }
    const hits = findPieces(t.kernels, query);
    const head = h(
      'div',
      { class: 'nbc-meta nbc-code-found-head' },
      `“${clip(query, 100)}”: ` +
        (hits.length
          ? `in ${hits.length} of ${plural(t.kernels.length, 'code piece')}`
          : `in none of the ${plural(t.kernels.length, 'code piece')}`)
    );
    const list = h('ul', { class: 'nbc-code-found-list' });
    for (const f of hits.slice(0, FOUND_PIECES)) {
      const k: IKernel = t.kernels[f.index];
      const item = h(
        'li',
        {
          class:
            'nbc-code-found-piece' + (f.index === shown ? ' nbc-selected' : ''),
          data: { index: String(f.index) }
        },
        button(
          h(
            'span',
            null,
            h('span', { class: 'nbc-kernel-title' }, clip(k.name, 300)),
            k.compile_label ? ` · ${clip(k.compile_label, 100)}` : '',
            [
              f.inName ? ' · in its name' : '',
              f.count ? ` · ${plural(f.count, 'line')}` : '',
              f.index === shown ? ' · shown' : ''
            ].join('')
          ),
          () => go(f.index, f.lines[0] ?? 1),
          'nbc-code-found-go',
          'Show this code piece at its first match'
        )
      );
      for (const line of f.lines.slice(0, FOUND_LINES)) {
        item.appendChild(
          button(
            `line ${line}: ${clip(lineOf(k.source, line).trim(), 160)}`,
            () => go(f.index, line),
            'nbc-code-found-line',
            'Show this line'
          )
        );
      }
      list.appendChild(item);
    }
    const more =
      hits.length > FOUND_PIECES
        ? h(
            'div',
            { class: 'nbc-meta' },
            `and ${plural(hits.length - FOUND_PIECES, 'more code piece')}`
          )
        : null;
    node.replaceChildren(head, list, ...(more ? [more] : []));
  }

  private _selected = new Map<string, number>();
  /** The query searched in the code view, kept while the record is redrawn. */
  private _query = '';
}
