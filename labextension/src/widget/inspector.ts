/**
 * The Compile inspector inside a cell: what `nbcompile.inspect(x)` shows through the
 * anywidget module (./index). The sidebar's own views render it: the target list and
 * target view (../sidebar: summary, breaks, recompiles, generated code, FX graphs, guards,
 * compiles with phases and CUDA graphs, torch logs), the report sections, and the source
 * and kernels view (../tab/sourcekernels). What differs is the host: code views are DOM
 * line views (../ui/linecode, no editor services outside JupyterLab), "open in a tab"
 * switches to the source and kernels view, and a link to a cell line selects that line
 * there (a widget cannot reach the notebook's cells). Text only, never HTML from a record.
 */

import { ISignal, Signal } from '@lumino/signaling';

import { ITargetRecord, ICellRef } from '../model/target';
import { Payload } from '../model/payload';
import { RecordStore } from '../records/store';
import { IInspectorSource, ISectionHost } from '../sidebar/section';
import { TargetList } from '../sidebar/targetlist';
import { TargetView } from '../sidebar/targetview';
import { reportSection, timingSection } from '../sidebar/reports';
import { SourceKernelPanes } from '../tab/sourcekernels';
import { button, h } from '../ui/dom';
import { clip } from '../ui/format';
import { LineCode } from '../ui/linecode';
import { isCut } from './channel';

type ViewName = 'views' | 'map';

export class InlineInspector implements IInspectorSource, ISectionHost {
  /**
   * `askWhole`: ask the kernel for the whole records (none: nothing is asked).
   * `rootClass`: the class marking the host (`nbc-widget`: the widget's view;
   * `nbc-saved-view`: the extension's view of a saved output, ../notebook/savedinspector).
   */
  constructor(
    readonly node: HTMLElement,
    private readonly _askWhole: (() => void) | null,
    rootClass = 'nbc-widget'
  ) {
    node.classList.add(rootClass, 'nbc-inspector');
    this._list = new TargetList(id => this.select(id));
    this._target = new TargetView(this);
    this._nav = h('div', {
      class: 'nbc-widget-nav',
      attrs: { role: 'tablist' }
    });
    this._snapshot.hidden = true;
    node.append(
      this._header,
      this._snapshot,
      this._nav,
      this._views,
      this._map
    );
  }

  readonly store = new RecordStore();
  title = 'Compile inspector';
  state = '';

  get stateChanged(): ISignal<this, void> {
    return this._stateChanged;
  }

  get source(): IInspectorSource {
    return this;
  }

  /** The view shown: the sections, or the source and kernels side by side. */
  get view(): ViewName {
    return this._view;
  }

  /** Show a checked payload (the widget's record); `null`: nothing to show. */
  show(payload: Payload | null): void {
    this._payload = payload;
    this.store.clear();
    if (payload) {
      this.store.apply(payload, 'live');
    }
    this._render();
    if (isCut(payload) && this._askWhole && !this._asked) {
      this._asked = true;
      this._state(
        'cut to the output budget: asking the kernel for the whole record'
      );
      this._askWhole();
    }
  }

  /** The whole record came back (checked within the whole-record limits). */
  showWhole(payload: Payload | null): void {
    if (payload?.record !== 'summary') {
      if (payload) {
        this._state(
          `the whole record was refused: ${clip(this._reason(payload), 300)}`
        );
      }
      return;
    }
    this.store.apply(payload, 'live');
    this._state('whole record from the kernel');
    this._render();
  }

  /**
   * A snapshot's sentence and the button that asks the kernel to read the target again
   * (both written by the kernel); an empty `text`: a live view, no line; no `refresh`:
   * the line alone.
   */
  setSnapshot(text: string, label: string, refresh: (() => void) | null): void {
    this._snapshot.hidden = !text;
    this._snapshot.replaceChildren(
      ...(text
        ? [
            h('span', { class: 'nbc-snapshot-text' }, clip(text, 500)),
            ...(refresh
              ? [
                  button(
                    clip(label || '⟳', 40),
                    refresh,
                    'nbc-button nbc-small nbc-snapshot-refresh',
                    undefined
                  )
                ]
              : [])
          ]
        : [])
    );
  }

  select(targetId: string): void {
    this._selected = targetId;
    this._render();
  }

  cellLabel(cell: ICellRef): string | null {
    return cell.execution_count !== null ? `[${cell.execution_count}]` : null;
  }

  /** A cell line: select it in the source and kernels view. */
  reveal(_cell: ICellRef, lineno: number | null): Promise<boolean> {
    const entry = this._current();
    if (!entry || lineno === null) {
      return Promise.resolve(false);
    }
    this.openTab(entry.record);
    this._panes?.selectSourceLine(lineno);
    return Promise.resolve(true);
  }

  codeView(key: string): LineCode {
    let v = this._codeViews.get(key);
    if (!v) {
      v = new LineCode(key);
      this._codeViews.set(key, v);
    }
    return v;
  }

  openTab(record: ITargetRecord): void {
    if (record !== this._current()?.record) {
      this._selected = record.id;
      this._render();
    }
    this._setView('map');
  }

  /** The source lines lit up in the source and kernels view. */
  get litSourceLines(): number[] {
    return this._panes?.litSourceLines ?? [];
  }

  dispose(): void {
    this._panes?.dispose();
    this._panes = null;
    for (const v of this._codeViews.values()) {
      v.dispose();
    }
    this._codeViews.clear();
    Signal.clearData(this);
  }

  private _render(): void {
    const store = this.store;
    const entry = this._current();
    const targets = store.targets;
    this._header.replaceChildren(
      h('span', { class: 'nbc-title' }, 'Compile inspector'),
      h(
        'span',
        { class: 'nbc-target-title' },
        entry ? clip(entry.record.name, 200) : ''
      ),
      h('span', { class: 'nbc-state' }, this.state)
    );
    this._views.replaceChildren();
    if (targets.length > 1) {
      this._list.render(targets, entry?.record.id ?? null);
      this._views.append(this._list.node);
    }
    if (entry) {
      this._target.update(entry);
      this._views.append(this._target.node);
    }
    for (const t of store.timings) {
      this._views.append(timingSection(t, this._open));
    }
    for (const r of store.reports) {
      this._views.append(reportSection(r, this, this._open));
    }
    for (const u of store.unknown) {
      this._views.append(
        h(
          'div',
          { class: 'nbc-note nbc-invalid' },
          `This record is not shown: ${clip(u.reason, 500)}`
        )
      );
    }
    if (!this._payload) {
      this._views.append(h('p', { class: 'nbc-muted' }, 'No record to show.'));
    }
    this._renderMap(entry?.record ?? null);
    this._renderNav(!!this._panes);
    this._setView(this._panes ? this._view : 'views');
    this._target.refresh();
  }

  private _renderMap(record: ITargetRecord | null): void {
    if (this._panes && this._panes.record === record) {
      return;
    }
    this._panes?.dispose();
    this._panes = null;
    this._map.replaceChildren();
    if (record && record.kernels.some(k => k.kind !== 'wrapper')) {
      const pane = new LineCode('map');
      this._panes = new SourceKernelPanes(this._map, record, pane);
    }
  }

  private _renderNav(hasMap: boolean): void {
    const tab = (name: ViewName, label: string) =>
      button(
        label,
        () => this._setView(name),
        'nbc-button nbc-small nbc-widget-tab',
        undefined
      );
    const views = tab('views', 'Inspector');
    const map = hasMap ? tab('map', 'Source ↔ kernels') : null;
    views.dataset.view = 'views';
    if (map) {
      map.dataset.view = 'map';
    }
    this._tabs = { views, map };
    this._nav.replaceChildren(views, ...(map ? [map] : []));
  }

  private _setView(view: ViewName): void {
    this._view = view === 'map' && this._panes ? 'map' : 'views';
    this._views.hidden = this._view !== 'views';
    this._map.hidden = this._view !== 'map';
    for (const [name, b] of Object.entries(this._tabs)) {
      if (b) {
        const on = name === this._view;
        b.classList.toggle('nbc-selected', on);
        b.setAttribute('aria-selected', on ? 'true' : 'false');
      }
    }
    if (this._view === 'map') {
      this._panes?.refresh();
    }
  }

  private _current() {
    return (
      (this._selected ? this.store.get(this._selected) : undefined) ??
      this.store.last ??
      null
    );
  }

  private _state(text: string): void {
    this.state = text;
    const el = this._header.querySelector('.nbc-state');
    if (el) {
      el.textContent = text;
    }
    this._stateChanged.emit();
  }

  private _reason(p: Payload): string {
    return p.record === 'unknown' ? p.reason : `a ${p.record} record`;
  }

  private _header = h('div', { class: 'nbc-header nbc-widget-header' });
  private _snapshot = h('div', { class: 'nbc-meta nbc-widget-snapshot' });
  private _nav: HTMLDivElement;
  private _views = h('div', { class: 'nbc-body nbc-widget-views' });
  private _map = h('div', { class: 'nbc-tabview nbc-widget-map' });
  private _tabs: Record<ViewName, HTMLButtonElement | null> = {
    views: null,
    map: null
  };
  private _list: TargetList;
  private _target: TargetView;
  private _panes: SourceKernelPanes | null = null;
  private _codeViews = new Map<string, LineCode>();
  private _open = new Map<string, boolean>();
  private _payload: Payload | null = null;
  private _selected: string | null = null;
  private _asked = false;
  private _view: ViewName = 'views';
  private _stateChanged = new Signal<this, void>(this);
}
