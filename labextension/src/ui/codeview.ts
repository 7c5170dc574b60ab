/**
 * A read-only, searchable code view built on JupyterLab's own CodeMirror 6 editor
 * (`IEditorServices`): the same themes and language support as the notebook, C++
 * and Python highlighting by MIME type. CodeMirror only renders the visible lines,
 * so 10k-line outputs stay cheap.
 */

import { CodeEditor, IEditorServices } from '@jupyterlab/codeeditor';
import {
  openSearchPanel,
  search,
  SearchQuery,
  searchKeymap,
  setSearchQuery
} from '@codemirror/search';
import { EditorView, keymap } from '@codemirror/view';

import { boundText } from './boundtext';
import { button, h } from './dom';

export { boundText };

export class CodeView {
  constructor(editorServices: IEditorServices, label: string) {
    this.node = h('div', { class: 'nbc-codeview', data: { view: label } });
    const toolbar = h('div', { class: 'nbc-codeview-toolbar' });
    this._info = h('span', { class: 'nbc-codeview-info' });
    toolbar.appendChild(this._info);
    toolbar.appendChild(
      button(
        'Find',
        () => this.openSearch(),
        'nbc-button nbc-small',
        'Search this code (Ctrl+F in the code)'
      )
    );
    this.node.appendChild(toolbar);
    this._host = h('div', { class: 'nbc-codeview-editor' });
    this.node.appendChild(this._host);
    this._model = new CodeEditor.Model({ mimeType: 'text/plain' });
    this._editor = editorServices.factoryService.newInlineEditor({
      host: this._host,
      model: this._model,
      config: {
        readOnly: true,
        lineNumbers: true,
        lineWrap: false,
        codeFolding: false,
        highlightActiveLine: false
      },
      extensions: [
        search({ top: true }),
        keymap.of(searchKeymap),
        // The query typed in the search panel, told to whoever searches beyond this text.
        EditorView.updateListener.of(update => {
          for (const tr of update.transactions) {
            for (const effect of tr.effects) {
              if (effect.is(setSearchQuery)) {
                this._searched(effect.value.search);
              }
            }
          }
        })
      ]
    });
  }

  readonly node: HTMLDivElement;
  onSearch: ((query: string) => void) | null = null;

  /** Show `text` highlighted as `mimeType`; a no-op when nothing changed. */
  setText(text: string, mimeType: string, info = ''): void {
    if (this._model.mimeType !== mimeType) {
      this._model.mimeType = mimeType;
    }
    if (text !== this._text) {
      this._text = text;
      this._model.sharedModel.setSource(boundText(text));
      // A new text starts at its top.
      this._editor.setCursorPosition({ line: 0, column: 0 });
      this._view()?.scrollDOM.scrollTo({ top: 0 });
    }
    let lines = text ? 1 : 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
      lines++;
    }
    this._info.textContent = info
      ? `${info} · ${lines} line${lines === 1 ? '' : 's'}`
      : `${lines} line${lines === 1 ? '' : 's'}`;
  }

  get text(): string {
    return this._text;
  }

  /** Open CodeMirror's own search panel on this view. */
  openSearch(): void {
    const view = this._view();
    if (view) {
      openSearchPanel(view);
    }
  }

  /** Search for `query` (the panel opened) and select its match on 1-based `line`. */
  find(query: string, line: number): void {
    const view = this._view();
    if (!view) {
      return;
    }
    this._query = query; // set here: not told back as the user's
    openSearchPanel(view);
    const doc = view.state.doc;
    const at = doc.line(Math.max(1, Math.min(line, doc.lines)));
    const col = at.text.toLowerCase().indexOf(query.toLowerCase());
    const from = at.from + Math.max(0, col);
    view.dispatch({
      effects: [
        setSearchQuery.of(new SearchQuery({ search: query })),
        EditorView.scrollIntoView(from, { y: 'center' })
      ],
      selection: { anchor: from, head: col >= 0 ? from + query.length : from }
    });
  }

  /** Call after the node was (re)attached to the document. */
  refresh(): void {
    this._view()?.requestMeasure();
  }

  dispose(): void {
    this.onSearch = null;
    this._editor.dispose();
    this._model.dispose();
  }

  private _searched(query: string): void {
    if (query !== this._query) {
      this._query = query;
      this.onSearch?.(query);
    }
  }

  private _view(): EditorView | null {
    const ed = this._editor as unknown as { editor?: EditorView };
    return ed.editor ?? null;
  }

  private _host: HTMLDivElement;
  private _info: HTMLSpanElement;
  private _model: CodeEditor.Model;
  private _editor: CodeEditor.IEditor;
  private _text = '';
  private _query = '';
}
