/**
 * One target's source and its generated code side by side, the way Compiler Explorer
 * shows source and assembly: each kernel's lines and the source lines it computes share a
 * colour; selecting a source line (click, or the keyboard: arrows and Enter) lights up
 * its kernels' code and scrolls there, and moving to a line of the code lights up the
 * source lines that kernel came from. Diffs between compiles open in the same code pane.
 *
 * The one implementation behind the sidebar's "source ↔ kernels" tab (./tabview, with a
 * CodeMirror pane) and the inline inspector widget (../widget, with a DOM pane): both
 * pass their `ICodePane`. Text only, never HTML from the record.
 */

import { ICodePane } from '../ui/codesink';
import { h } from '../ui/dom';
import { clip } from '../ui/format';
import { handled, keepKeys } from '../ui/keys';
import { ITargetRecord } from '../model/target';
import { blockAt, buildSourceMap, ISourceMap, MAX_ROWS } from './sourcemap';

/** Distinct mapping colours (CSS classes nbc-map-0 .. nbc-map-7). */
const COLOURS = 8;

export class SourceKernelPanes {
  /** Fill `node` (the tab's or the widget's) with the toolbar and the two panes. */
  constructor(
    readonly node: HTMLElement,
    record: ITargetRecord,
    private readonly _code: ICodePane
  ) {
    this._record = record;
    this._map = buildSourceMap(record);

    this._picker = h('select', {
      class: 'nbc-select',
      attrs: { 'aria-label': 'what the code pane shows' }
    });
    const kernelsOption = h('option', null, 'kernels, mapped to the source');
    kernelsOption.value = 'map';
    this._picker.appendChild(kernelsOption);
    record.code_diffs.slice(0, 500).forEach((d, i) => {
      const opt = h(
        'option',
        null,
        clip(
          `diff ${d.previous_compile_id} → ${d.compile_id}: ${d.kernel} (${d.change})`,
          200
        )
      );
      opt.value = String(i);
      this._picker.appendChild(opt);
    });
    this._picker.addEventListener('change', () =>
      this.showPane(this._picker.value)
    );
    this._info = h('span', { class: 'nbc-meta' });
    const toolbar = h(
      'div',
      { class: 'nbc-tab-toolbar' },
      this._picker,
      this._info
    );

    this._source = h('div', {
      class: 'nbc-map-source',
      attrs: {
        role: 'listbox',
        'aria-label': `${clip(record.name, 100)} source lines`,
        tabindex: '-1'
      }
    });
    keepKeys(this._source, ['Enter', 'Space', 'ArrowDown', 'ArrowUp']);
    this._renderSource();
    this._code.node.classList.add('nbc-map-code');
    this._code.onLine = line => {
      if (this._pane === 'map') {
        this._onCodeLine(line);
      }
    };
    node.append(
      toolbar,
      h(
        'div',
        { class: 'nbc-map-panes' },
        h(
          'div',
          { class: 'nbc-map-pane' },
          h('div', { class: 'nbc-map-head' }, 'source'),
          this._source
        ),
        h(
          'div',
          { class: 'nbc-map-pane' },
          h('div', { class: 'nbc-map-head' }, 'generated code'),
          this._code.node
        )
      )
    );
    this.showPane('map');
  }

  get record(): ITargetRecord {
    return this._record;
  }

  /** The source line numbers lit up now (for tests and screen readers alike). */
  get litSourceLines(): number[] {
    return [...this._source.querySelectorAll<HTMLElement>('.nbc-map-hot')].map(
      el => Number(el.dataset.lineno)
    );
  }

  /** Light up source line `lineno` and its kernels' code (scrolled into view). */
  selectSourceLine(lineno: number): void {
    if (this._pane !== 'map') {
      this._picker.value = 'map';
      this.showPane('map');
    }
    const row = this._map.rows.find(r => r.lineno === lineno);
    this._setHot(new Set([lineno]), new Set(row?.kernels ?? []));
    const first = this._map.blocks.find(b => row?.kernels.includes(b.kernel));
    if (first) {
      this._code.scrollToLine(Math.min(first.start, this._code.lineCount));
    }
    const el = this._source.querySelector<HTMLElement>('.nbc-map-hot');
    if (el) {
      this._source.scrollTop = Math.max(
        0,
        el.offsetTop - this._source.clientHeight / 3
      );
    }
  }

  /** Show the kernels mapped to the source (`'map'`) or diff number `pane`. */
  showPane(pane: string): void {
    this._pane = pane;
    this.node.dataset.pane = pane;
    if (pane === 'map') {
      this._code.setText(
        this._map.text,
        this._record.kernels.some(k => k.language === 'cpp')
          ? 'text/x-c++src'
          : 'text/x-python'
      );
      this.node.dataset.codeLines = String(this._map.text.split('\n').length);
      this._info.textContent = this._record.no_kernel_lines
        ? `${this._map.blocks.length} code pieces`
        : `${this._map.blocks.length} code pieces · select a source line or move in the code to see ` +
          'where each came from';
      this._hotKey = null;
      this._setHot(new Set(), new Set());
      return;
    }
    const d = this._record.code_diffs[Number(pane)];
    this._code.setText(d ? d.diff : '', 'text/x-diff');
    this._info.textContent = d
      ? clip(`${d.kernel}: ${d.change}${d.cause ? ` — ${d.cause}` : ''}`, 300)
      : '';
    this._hotKey = null;
    this._code.markLines(new Map());
  }

  refresh(): void {
    this._code.refresh();
  }

  dispose(): void {
    this._code.dispose();
  }

  private _renderSource(): void {
    const rows = this._map.rows;
    if (this._record.no_kernel_lines) {
      // No line could ever light: the record says why, in place of the lines.
      this._source.appendChild(
        h(
          'p',
          { class: 'nbc-muted nbc-map-none' },
          clip(this._record.no_kernel_lines, 1000)
        )
      );
      return;
    }
    if (!rows.length) {
      this._source.appendChild(
        h(
          'p',
          { class: 'nbc-muted' },
          'No source lines were recorded for this target.'
        )
      );
      return;
    }
    // As wide as the longest line (the pane at least): each row's colour and chips span
    // the whole width a line scrolls to.
    const lines = h('div', {
      class: 'nbc-map-lines',
      attrs: { role: 'presentation' }
    });
    for (const r of rows) {
      const chips = h('span', { class: 'nbc-map-chips' });
      for (const k of r.kernels.slice(0, 6)) {
        chips.appendChild(
          h('span', {
            class: `nbc-map-chip nbc-map-${k % COLOURS}`,
            title: clip(this._record.kernels[k].name, 200)
          })
        );
      }
      const row = h(
        'div',
        {
          class:
            `nbc-map-row nbc-map-cat-${/^[a-z_]{1,20}$/.test(r.category) ? r.category : 'other'}` +
            (r.kernels.length ? ` nbc-map-${r.kernels[0] % COLOURS}` : ''),
          data: { lineno: String(r.lineno) },
          title: r.kernels.length
            ? `computed by ${clip(r.kernels.map(k => this._record.kernels[k].name).join(', '), 500)}`
            : clip(r.category, 40),
          attrs: { role: 'option', tabindex: '0' }
        },
        h('span', { class: 'nbc-lineno' }, String(r.lineno)),
        h('code', null, clip(r.line, 500)),
        chips
      );
      row.addEventListener('click', () => this.selectSourceLine(r.lineno));
      row.addEventListener('keydown', ev => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          handled(ev);
          this.selectSourceLine(r.lineno);
        } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
          handled(ev);
          const next = (
            ev.key === 'ArrowDown'
              ? row.nextElementSibling
              : row.previousElementSibling
          ) as HTMLElement | null;
          next?.focus();
        }
      });
      lines.appendChild(row);
    }
    this._source.appendChild(lines);
    if (rows.length >= MAX_ROWS) {
      this._source.appendChild(
        h('p', { class: 'nbc-meta' }, `The first ${MAX_ROWS} lines.`)
      );
    }
  }

  private _onCodeLine(line: number): void {
    const block = blockAt(this._map, line);
    if (!block) {
      this._setHot(new Set(), new Set());
      return;
    }
    const lines = new Set(this._map.kernelLines.get(block.kernel) ?? []);
    this._setHot(lines, new Set([block.kernel]));
    const first = this._source.querySelector<HTMLElement>('.nbc-map-hot');
    first?.scrollIntoView({ block: 'nearest' });
  }

  /** Mark source rows `lines` and the code of `kernels` as lit; colour every block. */
  private _setHot(lines: Set<number>, kernels: Set<number>): void {
    const key = `${[...lines].join(',')}|${[...kernels].join(',')}`;
    if (key === this._hotKey && this._pane === 'map') {
      return; // the cursor moved inside the same kernel
    }
    this._hotKey = key;
    this._source.querySelectorAll<HTMLElement>('.nbc-map-row').forEach(el => {
      const hot = lines.has(Number(el.dataset.lineno));
      el.classList.toggle('nbc-map-hot', hot);
      el.setAttribute('aria-selected', hot ? 'true' : 'false');
    });
    if (this._pane !== 'map') {
      return;
    }
    const marks = new Map<number, string>();
    const last = this._code.lineCount;
    for (const b of this._map.blocks) {
      const cls =
        `nbc-map-${b.kernel % COLOURS}` +
        (kernels.has(b.kernel) ? ' nbc-map-hot' : '');
      for (let n = b.start; n <= Math.min(b.end, last); n++) {
        marks.set(n, cls);
      }
    }
    this._code.markLines(marks);
  }

  private _record: ITargetRecord;
  private _map: ISourceMap;
  private _picker: HTMLSelectElement;
  private _source: HTMLDivElement;
  private _info: HTMLSpanElement;
  private _pane = 'map';
  private _hotKey: string | null = null;
}
