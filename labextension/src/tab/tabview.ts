/**
 * "Open in a tab": a main-area view of one target with its source and its generated
 * code side by side, the way Compiler Explorer shows source and assembly. Each kernel's
 * lines and the source lines it computes share a colour; selecting a source line (click,
 * or the keyboard: arrows and Enter) lights up its kernels' code and scrolls there, and
 * moving the cursor in the code (click or keys) lights up the source lines that kernel
 * came from. Diffs between compiles open in the same code pane. The code pane is
 * JupyterLab's own CodeMirror editor, read-only; line colours are CodeMirror decorations.
 */

import { CodeEditor, IEditorServices } from '@jupyterlab/codeeditor';
import { RangeSetBuilder, StateEffect, StateField } from '@codemirror/state';
import { Decoration, DecorationSet, EditorView } from '@codemirror/view';
import { Widget } from '@lumino/widgets';

import { boundText } from '../ui/codeview';
import { h } from '../ui/dom';
import { clip } from '../ui/format';
import { ITargetRecord } from '../model/target';
import { blockAt, buildSourceMap, ISourceMap, MAX_ROWS } from './sourcemap';

/** Distinct mapping colours (CSS classes nbc-map-0 .. nbc-map-7). */
const COLOURS = 8;

const setMarks = StateEffect.define<DecorationSet>();
const marksField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, tr) {
    for (const e of tr.effects) {
      if (e.is(setMarks)) {
        return e.value;
      }
    }
    return value.map(tr.changes);
  },
  provide: f => EditorView.decorations.from(f)
});

export class SourceKernelView extends Widget {
  constructor(editorServices: IEditorServices, record: ITargetRecord) {
    super();
    this.addClass('nbc-tabview');
    this.id = `nbcompile-tab-${record.id}`;
    this.title.label = `${clip(record.name, 60)}: source ↔ kernels`;
    this.title.caption = `nbcompile: ${clip(record.name, 200)}'s source and generated code, side by side`;
    this.title.closable = true;
    this._record = record;
    this._map = buildSourceMap(record);

    const picker = h('select', {
      class: 'nbc-select',
      attrs: { 'aria-label': 'what the code pane shows' }
    });
    const kernelsOption = h('option', null, 'kernels, mapped to the source');
    kernelsOption.value = 'map';
    picker.appendChild(kernelsOption);
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
      picker.appendChild(opt);
    });
    picker.addEventListener('change', () => this._showPane(picker.value));
    this._info = h('span', { class: 'nbc-meta' });
    const toolbar = h('div', { class: 'nbc-tab-toolbar' }, picker, this._info);

    this._source = h('div', {
      class: 'nbc-map-source',
      attrs: {
        role: 'listbox',
        'aria-label': `${clip(record.name, 100)} source lines`,
        tabindex: '-1'
      }
    });
    this._renderSource();
    const codeHost = h('div', { class: 'nbc-map-code' });
    this._model = new CodeEditor.Model({ mimeType: 'text/x-c++src' });
    this._editor = editorServices.factoryService.newInlineEditor({
      host: codeHost,
      model: this._model,
      config: {
        readOnly: true,
        lineNumbers: true,
        lineWrap: false,
        codeFolding: false
      },
      extensions: [
        marksField,
        EditorView.updateListener.of(update => {
          if (update.selectionSet && this._pane === 'map') {
            this._onCodeLine(
              update.state.doc.lineAt(update.state.selection.main.head).number
            );
          }
        })
      ]
    });
    this.node.append(
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
          codeHost
        )
      )
    );
    this._showPane('map');
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
    const row = this._map.rows.find(r => r.lineno === lineno);
    this._setHot(new Set([lineno]), new Set(row?.kernels ?? []));
    const first = this._map.blocks.find(b => row?.kernels.includes(b.kernel));
    const view = this._view();
    if (first && view) {
      const pos = view.state.doc.line(
        Math.min(first.start, view.state.doc.lines)
      ).from;
      view.dispatch({
        effects: EditorView.scrollIntoView(pos, { y: 'start' })
      });
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._editor.dispose();
    this._model.dispose();
    super.dispose();
  }

  protected onAfterShow(): void {
    this._view()?.requestMeasure();
  }

  private _renderSource(): void {
    const rows = this._map.rows;
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
          ev.preventDefault();
          this.selectSourceLine(r.lineno);
        } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
          ev.preventDefault();
          const next = (
            ev.key === 'ArrowDown'
              ? row.nextElementSibling
              : row.previousElementSibling
          ) as HTMLElement | null;
          next?.focus();
        }
      });
      this._source.appendChild(row);
    }
    if (rows.length >= MAX_ROWS) {
      this._source.appendChild(
        h('p', { class: 'nbc-meta' }, `The first ${MAX_ROWS} lines.`)
      );
    }
  }

  private _showPane(pane: string): void {
    this._pane = pane;
    if (pane === 'map') {
      this._model.mimeType = this._record.kernels.some(
        k => k.language === 'cpp'
      )
        ? 'text/x-c++src'
        : 'text/x-python';
      this._model.sharedModel.setSource(boundText(this._map.text));
      this.node.dataset.codeLines = String(this._map.text.split('\n').length);
      this._info.textContent =
        `${this._map.blocks.length} code pieces · select a source line or move in the code to see ` +
        'where each came from';
      this._hotKey = null;
      this._setHot(new Set(), new Set());
      return;
    }
    const d = this._record.code_diffs[Number(pane)];
    this._model.mimeType = 'text/x-diff';
    this._model.sharedModel.setSource(boundText(d ? d.diff : ''));
    this._info.textContent = d
      ? clip(`${d.kernel}: ${d.change}${d.cause ? ` — ${d.cause}` : ''}`, 300)
      : '';
    this._hotKey = null;
    this._view()?.dispatch({ effects: setMarks.of(Decoration.none) });
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
    const view = this._view();
    if (!view || this._pane !== 'map') {
      return;
    }
    const doc = view.state.doc;
    const builder = new RangeSetBuilder<Decoration>();
    for (const b of this._map.blocks) {
      const cls =
        `nbc-map-${b.kernel % COLOURS}` +
        (kernels.has(b.kernel) ? ' nbc-map-hot' : '');
      const deco = Decoration.line({ class: cls });
      for (let n = b.start; n <= Math.min(b.end, doc.lines); n++) {
        const pos = doc.line(n).from;
        builder.add(pos, pos, deco);
      }
    }
    view.dispatch({ effects: setMarks.of(builder.finish()) });
  }

  private _view(): EditorView | null {
    const ed = this._editor as unknown as { editor?: EditorView };
    return ed.editor ?? null;
  }

  private _record: ITargetRecord;
  private _map: ISourceMap;
  private _source: HTMLDivElement;
  private _info: HTMLSpanElement;
  private _model: CodeEditor.Model;
  private _editor: CodeEditor.IEditor;
  private _pane = 'map';
  private _hotKey: string | null = null;
}
