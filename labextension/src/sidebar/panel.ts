/**
 * The "Compile inspector" right-sidebar panel: renders the records of the active
 * notebook. Renders only; computes nothing; never evaluates anything. All record text
 * reaches the DOM through `textContent` or the read-only code view.
 *
 * Parts: the header, the target list, the selected target's view (summary and one
 * section per concern, ./targetview) and the timing records. A store change updates
 * only the parts it touched; selecting a target re-renders only the target view.
 */

import { IEditorServices } from '@jupyterlab/codeeditor';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { CodeView } from '../ui/codeview';
import { h } from '../ui/dom';
import { clip, plural } from '../ui/format';
import { IProfilePayload } from '../model/profile';
import { ITargetRecord } from '../model/target';
import { IStoreChange, ITargetEntry, RecordStore } from '../records/store';
import { IInspectorSource, ISectionHost } from './section';
import { tickCompiling } from './summary';
import { TargetList } from './targetlist';
import { TargetView } from './targetview';
import { rankedBreaksSection, reportSection, timingSection } from './reports';

export type { IInspectorSource } from './section';

export class InspectorPanel extends Widget implements ISectionHost {
  constructor(
    editorServices: IEditorServices,
    openTab?: (record: ITargetRecord) => void
  ) {
    super();
    this._editorServices = editorServices;
    this.openTab = openTab;
    this.addClass('nbc-inspector');
    this.id = 'nbcompile-inspector';
    this.title.caption = 'Compile inspector';
    this._list = new TargetList(id => this.select(id));
    this._target = new TargetView(this);
    this.node.append(this._header, this._body);
    this._renderHeader();
    this._renderBody();
  }

  /** Show another notebook's records (or none). */
  setSource(source: IInspectorSource | null): void {
    if (source === this._source) {
      return;
    }
    if (this._source) {
      this._source.store.changed.disconnect(this._onStoreChanged, this);
      this._source.stateChanged.disconnect(this._renderHeader, this);
    }
    this._source = source;
    this._selected = null;
    if (source) {
      source.store.changed.connect(this._onStoreChanged, this);
      source.stateChanged.connect(this._renderHeader, this);
    }
    this._renderHeader();
    this._renderBody();
  }

  readonly openTab?: (record: ITargetRecord) => void;

  get source(): IInspectorSource | null {
    return this._source;
  }

  /** Select a target by id (e.g. from the inline summary's button or a list click). */
  select(targetId: string | null): void {
    this._selected = targetId;
    const current = this._currentTarget();
    this._list.setSelected(current?.record.id ?? null);
    if (current) {
      this._target.update(current);
      this._source?.wantWhole?.(current.record);
      this._updateTimer();
    }
  }

  get selectedId(): string | null {
    return this._currentTarget()?.record.id ?? null;
  }

  /** The record of the target the panel shows, if any. */
  get selectedRecord(): ITargetRecord | null {
    return this._currentTarget()?.record ?? null;
  }

  codeView(key: string): CodeView {
    let v = this._views.get(key);
    if (!v) {
      v = new CodeView(this._editorServices, key);
      this._views.set(key, v);
    }
    return v;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.setSource(null);
    window.clearInterval(this._timer);
    for (const v of this._views.values()) {
      v.dispose();
    }
    this._views.clear();
    super.dispose();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this._target.refresh();
  }

  private _onStoreChanged(_: RecordStore, change: IStoreChange): void {
    const p = this._pending;
    if (!p) {
      this._pending = {
        reset: change.reset,
        targets: new Set(change.targets),
        removed: new Set(change.removed),
        timings: change.timings,
        reports: change.reports,
        unknown: change.unknown
      };
      requestAnimationFrame(() => this._applyPending());
      return;
    }
    p.reset ||= change.reset;
    p.timings ||= change.timings;
    p.reports ||= change.reports;
    p.unknown ||= change.unknown;
    change.targets.forEach(id => p.targets.add(id));
    change.removed.forEach(id => p.removed.add(id));
  }

  private _applyPending(): void {
    const p = this._pending;
    this._pending = null;
    const store = this._source?.store;
    if (!p || !store || this.isDisposed) {
      return;
    }
    if (
      p.reset ||
      p.removed.size ||
      store.isEmpty ||
      !this._body.contains(this._list.node)
    ) {
      this._renderBody();
      return;
    }
    if (this._list.hasRows(p.targets)) {
      const entries: ITargetEntry[] = [];
      p.targets.forEach(id => {
        const e = store.get(id);
        if (e) {
          entries.push(e);
        }
      });
      this._list.updateRows(entries);
    } else {
      this._list.render(
        store.targets,
        this._currentTarget()?.record.id ?? null
      );
    }
    const current = this._currentTarget();
    if (current) {
      this._list.setSelected(current.record.id);
      this._target.update(current);
      this._source?.wantWhole?.(current.record);
    }
    if (p.timings || p.reports || p.unknown) {
      this._renderExtras();
    } else if (p.targets.size) {
      this._renderRanked();
    }
    this._updateTimer();
  }

  private _renderHeader(): void {
    const src = this._source;
    this._header.replaceChildren(
      h('div', { class: 'nbc-title' }, 'Compile inspector'),
      src
        ? h(
            'div',
            { class: 'nbc-subtitle' },
            h('span', { class: 'nbc-notebook-name' }, clip(src.title, 200)),
            h('span', { class: 'nbc-state' }, src.state)
          )
        : h('div', { class: 'nbc-subtitle' }, 'No notebook open')
    );
  }

  /** Everything below the header, afresh (new notebook, kernel restart). */
  private _renderBody(): void {
    const scroll = this._body.scrollTop;
    const store = this._source?.store;
    if (!store || store.isEmpty) {
      this._body.replaceChildren(this._renderEmpty(!!store));
      this._updateTimer();
      return;
    }
    const current = this._currentTarget();
    this._list.render(store.targets, current?.record.id ?? null);
    this._body.replaceChildren();
    if (current) {
      this._body.append(this._list.node, this._target.node);
      this._target.update(current);
      this._source?.wantWhole?.(current.record);
    }
    this._body.append(this._ranked, this._extras);
    this._renderExtras();
    this._body.scrollTop = scroll;
    this._target.refresh();
    this._updateTimer();
  }

  /**
   * The notebook-level parts: its graph breaks ranked, the timing, trace, profile,
   * suggestions, diagnosis and compile-time records, and the note about records this
   * version does not show.
   */
  private _renderExtras(): void {
    const store = this._source?.store;
    this._extras.replaceChildren();
    if (!store) {
      return;
    }
    this._renderRanked();
    for (const t of store.timings.slice(0, 50)) {
      this._extras.appendChild(timingSection(t, this._open));
    }
    for (const r of store.reports.slice(0, 50)) {
      this._extras.appendChild(reportSection(r, this, this._open));
    }
    const unknown = store.unknown;
    if (unknown.length) {
      const reasons = new Set<string>();
      for (const u of unknown) {
        reasons.add(clip(u.reason, 300));
        if (reasons.size >= 5) {
          break;
        }
      }
      this._extras.appendChild(
        h(
          'div',
          { class: 'nbc-note nbc-invalid' },
          `${plural(unknown.length, 'record')} of this notebook not shown:`,
          h('ul', null, ...[...reasons].map(r => h('li', null, r)))
        )
      );
    }
  }

  /** The notebook's graph breaks, ranked (targets and profiles feed it). */
  private _renderRanked(): void {
    const store = this._source?.store;
    const section = store
      ? rankedBreaksSection(
          this,
          store.targets.map(e => e.record),
          store.reports.filter(
            (r): r is IProfilePayload => r.record === 'profile'
          ),
          this._open
        )
      : null;
    this._ranked.replaceChildren(...(section ? [section] : []));
  }

  private _renderEmpty(hasNotebook: boolean): HTMLElement {
    return h(
      'div',
      { class: 'nbc-empty' },
      h(
        'p',
        null,
        hasNotebook
          ? 'No compiled targets in this notebook yet.'
          : 'Open a notebook to see what torch.compile did in it.'
      ),
      h(
        'p',
        null,
        'Run ',
        h('code', null, '%load_ext nbcompile'),
        ', then put ',
        h('code', null, '%%compile'),
        ' on top of a cell that defines functions or nn.Modules. ' +
          'They compile at their first call; this panel follows along.'
      )
    );
  }

  private _currentTarget(): ITargetEntry | null {
    const store = this._source?.store;
    if (!store) {
      return null;
    }
    return (
      (this._selected ? store.get(this._selected) : undefined) ??
      store.last ??
      null
    );
  }

  /** Tick "compiling… Ns" once a second while something compiles. */
  private _updateTimer(): void {
    window.clearInterval(this._timer);
    this._timer = 0;
    if (tickCompiling(this._body)) {
      this._timer = window.setInterval(() => {
        if (!tickCompiling(this._body)) {
          window.clearInterval(this._timer);
          this._timer = 0;
        }
      }, 1000);
    }
  }

  private _editorServices: IEditorServices;
  private _header = h('div', { class: 'nbc-header' });
  private _body = h('div', { class: 'nbc-body' });
  private _ranked = h('div', { class: 'nbc-ranked' });
  private _extras = h('div', { class: 'nbc-extras' });
  private _list: TargetList;
  private _target: TargetView;
  private _source: IInspectorSource | null = null;
  private _selected: string | null = null;
  private _pending:
    (IStoreChange & { targets: Set<string>; removed: Set<string> }) | null =
    null;
  private _open = new Map<string, boolean>();
  private _views = new Map<string, CodeView>();
  private _timer = 0;
}
