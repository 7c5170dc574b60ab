/**
 * A read-only code view without an editor, for the inline inspector widget (no
 * JupyterLab services there, and its module stays small): one element per line, text
 * through `textContent`, line numbers, per-line marks, a line chosen by click or arrow
 * keys, and a search box that lights up the matching lines and steps through them.
 * Serves as a section's code view (`ICodeView`) and as the code pane of the source and
 * kernels view (`ICodePane`). Lines past `MAX_LINES` are left out, with a note.
 */

import { boundText } from './boundtext';
import { ICodePane, ICodeView } from './codesink';
import { button, h } from './dom';
import { handled, keepKeys } from './keys';

/** Lines rendered (one element each). */
export const MAX_LINES = 20_000;

export class LineCode implements ICodeView, ICodePane {
  constructor(label: string) {
    this.node = h('div', {
      class: 'nbc-codeview nbc-linecode',
      data: { view: label }
    });
    this._info = h('span', { class: 'nbc-codeview-info' });
    this._query = h('input', {
      class: 'nbc-linecode-find',
      attrs: {
        type: 'search',
        placeholder: 'Find',
        'aria-label': 'Search this code'
      }
    });
    this._hits = h('span', { class: 'nbc-linecode-hits' });
    this._query.addEventListener('input', () => {
      this.search(this._query.value);
      this.onSearch?.(this._query.value);
    });
    this._query.addEventListener('keydown', ev => {
      if (ev.key === 'Enter') {
        handled(ev);
        this._step(ev.shiftKey ? -1 : 1);
      }
    });
    this._lines = h('div', {
      class: 'nbc-linecode-lines',
      attrs: { role: 'listbox', tabindex: '0', 'aria-label': label }
    });
    keepKeys(this._query, ['Enter']);
    keepKeys(this._lines, ['ArrowDown', 'ArrowUp']);
    this._lines.addEventListener('click', ev => {
      const row = (ev.target as Element | null)?.closest<HTMLElement>(
        '.nbc-codeline'
      );
      if (row) {
        this._moveTo(Number(row.dataset.line));
      }
    });
    this._lines.addEventListener('keydown', ev => {
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        handled(ev);
        const next = this._cursor + (ev.key === 'ArrowDown' ? 1 : -1);
        if (next >= 1 && next <= this._rows.length) {
          this._moveTo(next);
          this._reveal(next, false);
        }
      }
    });
    this.node.append(
      h(
        'div',
        { class: 'nbc-codeview-toolbar' },
        this._info,
        this._query,
        button(
          '↑',
          () => this._step(-1),
          'nbc-button nbc-small',
          'Previous match'
        ),
        button('↓', () => this._step(1), 'nbc-button nbc-small', 'Next match'),
        this._hits
      ),
      this._lines
    );
  }

  readonly node: HTMLDivElement;
  onLine: ((line: number) => void) | null = null;
  onSearch: ((query: string) => void) | null = null;

  get text(): string {
    return this._text;
  }

  get lineCount(): number {
    return this._rows.length;
  }

  /** The line numbers matching the search now (1-based). */
  get hitLines(): number[] {
    return [...this._found];
  }

  setText(text: string, mimeType: string, info = ''): void {
    this.node.dataset.mime = mimeType;
    if (text !== this._text || !this._rows.length) {
      this._text = text;
      this._render(boundText(text));
    }
    const n = this._total;
    const lines = `${n} line${n === 1 ? '' : 's'}`;
    this._info.textContent = info ? `${info} · ${lines}` : lines;
    if (this._query.value) {
      this.search(this._query.value);
    }
  }

  markLines(marks: ReadonlyMap<number, string>): void {
    for (const line of this._marked) {
      const row = this._rows[line - 1];
      if (row && !marks.has(line)) {
        row.className = this._rowClass(line, '');
      }
    }
    this._marked = [];
    for (const [line, cls] of marks) {
      const row = this._rows[line - 1];
      if (row) {
        row.className = this._rowClass(line, cls);
        this._marked.push(line);
      }
    }
    this._marks = new Map(marks);
  }

  scrollToLine(line: number): void {
    this._reveal(line, true);
  }

  /** Light up the lines containing `query` (any case); scroll to the first. */
  search(query: string): number {
    const q = query.toLowerCase();
    this._found = [];
    if (q) {
      this._rows.forEach((row, i) => {
        if ((row.lastChild?.textContent ?? '').toLowerCase().includes(q)) {
          this._found.push(i + 1);
        }
      });
    }
    this._foundSet = new Set(this._found);
    this._current = this._found.length ? 0 : -1;
    this._paintHits();
    return this._found.length;
  }

  /** Search for `query`, its current match the one on `line` (or the next after it). */
  find(query: string, line: number): void {
    this._query.value = query;
    this.search(query);
    const at = this._found.findIndex(l => l >= line);
    if (at >= 0) {
      this._current = at;
      this._paintHits();
    }
  }

  refresh(): void {
    /* nothing to measure: the browser lays the lines out */
  }

  dispose(): void {
    this.onLine = null;
    this.onSearch = null;
  }

  private _render(text: string): void {
    const lines = text ? text.split('\n') : [];
    this._total = lines.length;
    this._rows = [];
    this._marked = [];
    this._marks = new Map();
    this._found = [];
    this._foundSet = new Set();
    this._cursor = 0;
    const frag = document.createDocumentFragment();
    // As wide as the longest line (the box at least): a line's mark spans the whole
    // width it scrolls to.
    const rows = h('div', {
      class: 'nbc-linecode-rows',
      attrs: { role: 'presentation' }
    });
    frag.appendChild(rows);
    const shown = Math.min(lines.length, MAX_LINES);
    for (let i = 0; i < shown; i++) {
      const row = h(
        'div',
        { class: 'nbc-codeline', data: { line: String(i + 1) } },
        h('span', { class: 'nbc-codeline-no' }, String(i + 1)),
        h('span', { class: 'nbc-codeline-text' }, lines[i] || ' ')
      );
      this._rows.push(row);
      rows.appendChild(row);
    }
    if (lines.length > shown) {
      frag.appendChild(
        h(
          'div',
          { class: 'nbc-meta' },
          `… ${lines.length - shown} more lines not shown here`
        )
      );
    }
    this._lines.replaceChildren(frag);
    this._lines.scrollTop = 0;
    this._hits.textContent = '';
  }

  private _rowClass(line: number, mark: string): string {
    let cls = 'nbc-codeline';
    if (mark) {
      cls += ` ${mark}`;
    }
    if (this._foundSet.has(line)) {
      cls += ' nbc-search-hit';
    }
    if (this._found[this._current] === line) {
      cls += ' nbc-search-current';
    }
    if (line === this._cursor) {
      cls += ' nbc-codeline-cursor';
    }
    return cls;
  }

  private _paintHits(): void {
    for (const [i, row] of this._rows.entries()) {
      row.className = this._rowClass(i + 1, this._marks.get(i + 1) ?? '');
    }
    this._hits.textContent = this._query.value
      ? this._found.length
        ? `${this._current + 1} of ${this._found.length}`
        : 'no match here'
      : '';
    const line = this._found[this._current];
    if (line !== undefined) {
      this._reveal(line, false);
    }
  }

  private _step(by: number): void {
    if (!this._found.length) {
      return;
    }
    const n = this._found.length;
    this._current = (this._current + by + n) % n;
    this._paintHits();
  }

  private _moveTo(line: number): void {
    const before = this._cursor;
    this._cursor = line;
    for (const l of [before, line]) {
      const row = this._rows[l - 1];
      if (row) {
        row.className = this._rowClass(l, this._marks.get(l) ?? '');
      }
    }
    this.onLine?.(line);
  }

  /** Scroll the lines box (never the page) to `line`: at the top, or just into view. */
  private _reveal(line: number, top: boolean): void {
    const row = this._rows[Math.min(line, this._rows.length) - 1];
    if (!row) {
      return;
    }
    const box = this._lines;
    const y = row.offsetTop;
    if (
      top ||
      y < box.scrollTop ||
      y + row.offsetHeight > box.scrollTop + box.clientHeight
    ) {
      box.scrollTop = top ? y : Math.max(0, y - box.clientHeight / 3);
    }
  }

  private _info: HTMLSpanElement;
  private _query: HTMLInputElement;
  private _hits: HTMLSpanElement;
  private _lines: HTMLDivElement;
  private _rows: HTMLDivElement[] = [];
  private _text = '';
  private _total = 0;
  private _marks: Map<number, string> = new Map();
  private _marked: number[] = [];
  private _found: number[] = [];
  private _foundSet: Set<number> = new Set();
  private _current = -1;
  private _cursor = 0;
}
