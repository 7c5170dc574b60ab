/**
 * "Open in a tab": a main-area view of one target with its source and its generated
 * code side by side (./sourcekernels, the view shared with the inline inspector widget).
 * The code pane here is JupyterLab's own CodeMirror editor, read-only; line colours are
 * CodeMirror decorations, the line the user moved to is the cursor's.
 */

import { CodeEditor, IEditorServices } from '@jupyterlab/codeeditor';
import { RangeSetBuilder, StateEffect, StateField } from '@codemirror/state';
import { Decoration, DecorationSet, EditorView } from '@codemirror/view';
import { Widget } from '@lumino/widgets';

import { boundText } from '../ui/boundtext';
import { ICodePane } from '../ui/codesink';
import { h } from '../ui/dom';
import { clip } from '../ui/format';
import { ITargetRecord } from '../model/target';
import { SourceKernelPanes } from './sourcekernels';

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

/** The code pane on JupyterLab's CodeMirror editor. */
class EditorPane implements ICodePane {
  constructor(editorServices: IEditorServices) {
    this._model = new CodeEditor.Model({ mimeType: 'text/x-c++src' });
    this._editor = editorServices.factoryService.newInlineEditor({
      host: this.node,
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
          if (update.selectionSet) {
            this.onLine?.(
              update.state.doc.lineAt(update.state.selection.main.head).number
            );
          }
        })
      ]
    });
  }

  readonly node = h('div');
  onLine: ((line: number) => void) | null = null;

  get lineCount(): number {
    return this._view()?.state.doc.lines ?? 0;
  }

  setText(text: string, mimeType: string): void {
    this._model.mimeType = mimeType;
    this._model.sharedModel.setSource(boundText(text));
  }

  markLines(marks: ReadonlyMap<number, string>): void {
    const view = this._view();
    if (!view) {
      return;
    }
    const doc = view.state.doc;
    const builder = new RangeSetBuilder<Decoration>();
    for (const n of [...marks.keys()].sort((a, b) => a - b)) {
      if (n >= 1 && n <= doc.lines) {
        const pos = doc.line(n).from;
        builder.add(pos, pos, Decoration.line({ class: marks.get(n)! }));
      }
    }
    view.dispatch({ effects: setMarks.of(builder.finish()) });
  }

  scrollToLine(line: number): void {
    const view = this._view();
    if (view) {
      const pos = view.state.doc.line(
        Math.max(1, Math.min(line, view.state.doc.lines))
      ).from;
      view.dispatch({
        effects: EditorView.scrollIntoView(pos, { y: 'start' })
      });
    }
  }

  refresh(): void {
    this._view()?.requestMeasure();
  }

  dispose(): void {
    this.onLine = null;
    this._editor.dispose();
    this._model.dispose();
  }

  private _view(): EditorView | null {
    const ed = this._editor as unknown as { editor?: EditorView };
    return ed.editor ?? null;
  }

  private _model: CodeEditor.Model;
  private _editor: CodeEditor.IEditor;
}

export class SourceKernelView extends Widget {
  constructor(editorServices: IEditorServices, record: ITargetRecord) {
    super();
    this.addClass('nbc-tabview');
    this.id = `nbcompile-tab-${record.id}`;
    this.title.label = `${clip(record.name, 60)}: source ↔ kernels`;
    this.title.caption = `nbcompile: ${clip(record.name, 200)}'s source and generated code, side by side`;
    this.title.closable = true;
    this._panes = new SourceKernelPanes(
      this.node,
      record,
      new EditorPane(editorServices)
    );
  }

  get record(): ITargetRecord {
    return this._panes.record;
  }

  /** The source line numbers lit up now (for tests and screen readers alike). */
  get litSourceLines(): number[] {
    return this._panes.litSourceLines;
  }

  /** Light up source line `lineno` and its kernels' code (scrolled into view). */
  selectSourceLine(lineno: number): void {
    this._panes.selectSourceLine(lineno);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._panes.dispose();
    super.dispose();
  }

  protected onAfterShow(): void {
    this._panes.refresh();
  }

  private _panes: SourceKernelPanes;
}
