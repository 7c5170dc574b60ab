/**
 * The "Compile inspector" right-sidebar panel: renders the records of the active
 * notebook. Renders only; computes nothing; never evaluates anything. All record
 * text reaches the DOM through `textContent` or the read-only code view.
 */

import { IEditorServices } from '@jupyterlab/codeeditor';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { CodeView } from './codeview';
import { button, Child, h } from './dom';
import {
  editorMimeType,
  formatSeconds,
  formatSize,
  generatedKernels,
  ICellRef,
  IGraphBreak,
  isCellFile,
  ITargetRecord,
  ITimingPayload,
  optionsText,
  shortPath,
  statusText
} from './records';
import { ITargetEntry, RecordStore } from './store';
import { countsText, plural, renderTiming } from './views';

/** What the sidebar shows: one notebook's records and a line about their origin. */
export interface IInspectorSource {
  readonly store: RecordStore;
  /** The notebook's name, for the header. */
  readonly title: string;
  /** e.g. "kernel idle" or "no kernel: read from saved outputs". */
  readonly state: string;
  /** Subscribe to state/title changes; returns the unsubscribe function. */
  onStateChanged(fn: () => void): () => void;
  /** The prompt label (`[2]`) of the cell a record points to, if it is in the notebook. */
  cellLabel(cell: ICellRef): string | null;
  /** Activate the cell a record points to and scroll to `lineno` (1-based, editor lines). */
  reveal(cell: ICellRef, lineno: number | null): Promise<boolean>;
}

const LANGUAGE_LABEL: Record<string, string> = {
  cpp: 'C++',
  triton: 'Triton',
  python: 'Python'
};

function nowSeconds(): number {
  return Date.now() / 1000;
}

export class InspectorPanel extends Widget {
  constructor(editorServices: IEditorServices) {
    super();
    this._editorServices = editorServices;
    this.addClass('nbc-inspector');
    this.id = 'nbcompile-inspector';
    this.title.caption = 'Compile inspector';
    this._header = h('div', { class: 'nbc-header' });
    this._body = h('div', { class: 'nbc-body' });
    this.node.appendChild(this._header);
    this.node.appendChild(this._body);
    this._renderAll();
  }

  /** Show another notebook's records (or none). */
  setSource(source: IInspectorSource | null): void {
    if (source === this._source) {
      return;
    }
    this._unsubscribe();
    this._source = source;
    this._selected = null;
    if (source) {
      const a = source.store.subscribe(() => this._scheduleRender());
      const b = source.onStateChanged(() => this._renderHeader());
      this._unsubscribers = [a, b];
    }
    this._renderAll();
  }

  get source(): IInspectorSource | null {
    return this._source;
  }

  /** Select a target by id (e.g. from the inline summary's button). */
  select(targetId: string | null): void {
    this._selected = targetId;
    this._renderBody();
    if (targetId) {
      const row = this._body.querySelector(`.nbc-target-row.nbc-selected`);
      row?.scrollIntoView({ block: 'nearest' });
    }
  }

  get selectedId(): string | null {
    return this._currentTarget()?.record.id ?? null;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._unsubscribe();
    window.clearInterval(this._timer);
    for (const v of this._views.values()) {
      v.dispose();
    }
    this._views.clear();
    super.dispose();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    for (const v of this._views.values()) {
      v.refresh();
    }
  }

  // -------------------------------------------------------------------------
  // Rendering
  // -------------------------------------------------------------------------

  private _scheduleRender(): void {
    if (this._renderPending) {
      return;
    }
    this._renderPending = true;
    requestAnimationFrame(() => {
      this._renderPending = false;
      this._renderAll();
    });
  }

  private _renderAll(): void {
    this._renderHeader();
    this._renderBody();
  }

  private _renderHeader(): void {
    const src = this._source;
    this._header.replaceChildren(
      h('div', { class: 'nbc-title' }, 'Compile inspector'),
      src
        ? h(
            'div',
            { class: 'nbc-subtitle' },
            h('span', { class: 'nbc-notebook-name' }, src.title),
            h('span', { class: 'nbc-state' }, src.state)
          )
        : h('div', { class: 'nbc-subtitle' }, 'No notebook open')
    );
  }

  private _renderBody(): void {
    const scroll = this._body.scrollTop;
    const src = this._source;
    const children: Child[] = [];
    if (!src || src.store.isEmpty) {
      children.push(this._renderEmpty(!!src));
    } else {
      const entries = src.store.targets;
      if (entries.length) {
        children.push(this._renderTargetList(entries));
        const current = this._currentTarget();
        if (current) {
          children.push(this._renderTarget(current));
        }
      }
      for (const t of src.store.timings) {
        children.push(this._renderTiming(t));
      }
      const unknown = src.store.unknown;
      if (unknown.length) {
        children.push(
          h(
            'div',
            { class: 'nbc-note' },
            `${plural(unknown.length, 'record')} of a kind this version does not show (` +
              [...new Set(unknown.map(u => u.kind))].join(', ') +
              '). Updating nbcompile may show them.'
          )
        );
      }
    }
    this._body.replaceChildren(...(children.filter(Boolean) as Node[]));
    this._body.scrollTop = scroll;
    for (const v of this._views.values()) {
      v.refresh();
    }
    this._updateTimer();
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
    const src = this._source;
    if (!src) {
      return null;
    }
    const entries = src.store.targets;
    if (!entries.length) {
      return null;
    }
    if (this._selected) {
      const e = src.store.get(this._selected);
      if (e) {
        return e;
      }
    }
    return entries[entries.length - 1];
  }

  private _renderTargetList(entries: ITargetEntry[]): HTMLElement {
    const currentId = this._currentTarget()?.record.id;
    const list = h('div', { class: 'nbc-target-list', attrs: { role: 'list' } });
    for (const e of entries) {
      const t = e.record;
      const row = h(
        'div',
        {
          class: 'nbc-target-row' + (t.id === currentId ? ' nbc-selected' : ''),
          data: { targetId: t.id },
          attrs: { role: 'listitem', tabindex: '0' },
          onClick: () => this.select(t.id)
        },
        h(
          'div',
          { class: 'nbc-target-line' },
          h('span', { class: 'nbc-target-name' }, t.name),
          h('span', { class: 'nbc-badge' }, t.kind),
          this._statusBadge(t)
        ),
        h('div', { class: 'nbc-target-counts' }, countsText(t))
      );
      row.addEventListener('keydown', ev => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          this.select(t.id);
        }
      });
      list.appendChild(row);
    }
    return list;
  }

  private _statusBadge(t: ITargetRecord): HTMLElement {
    const span = h(
      'span',
      { class: `nbc-status nbc-status-${/^[a-z]+$/.test(t.status) ? t.status : 'other'}` },
      statusText(t, nowSeconds())
    );
    if (t.status === 'compiling' && t.compiling_since) {
      span.dataset.compilingSince = String(t.compiling_since);
    }
    return span;
  }

  private _renderTarget(entry: ITargetEntry): HTMLElement {
    const t = entry.record;
    const root = h('div', { class: 'nbc-target', data: { targetId: t.id } });
    root.appendChild(
      h(
        'div',
        { class: 'nbc-target-header' },
        h('span', { class: 'nbc-target-title' }, t.name),
        entry.source === 'saved'
          ? h(
              'span',
              {
                class: 'nbc-badge nbc-badge-saved',
                title: 'Read from the notebook\u2019s saved outputs, not from a running kernel'
              },
              'saved output'
            )
          : null
      )
    );
    root.appendChild(this._renderSummary(t));
    root.appendChild(
      this._section(
        `${t.id}:breaks`,
        'Graph breaks',
        t.graph_breaks.length,
        true,
        () => this._renderBreaks(t)
      )
    );
    root.appendChild(
      this._section(
        `${t.id}:recompiles`,
        'Recompiles',
        t.recompiles.length,
        true,
        () => this._renderRecompiles(t)
      )
    );
    root.appendChild(
      this._section(
        `${t.id}:code`,
        'Generated code',
        t.kernels.length,
        true,
        () => this._renderCode(t)
      )
    );
    const graphCount = t.compiles.reduce((n, c) => n + c.graphs.length, 0);
    root.appendChild(
      this._section(`${t.id}:graphs`, 'FX graphs', graphCount, false, () =>
        this._renderGraphs(t)
      )
    );
    const guardCount = t.compiles.filter(c => c.guards).length;
    root.appendChild(
      this._section(`${t.id}:guards`, 'Guards', guardCount, false, () =>
        this._renderGuards(t)
      )
    );
    root.appendChild(
      this._section(`${t.id}:compiles`, 'Compiles', t.compiles.length, false, () =>
        this._renderCompiles(t)
      )
    );
    return root;
  }

  private _renderSummary(t: ITargetRecord): HTMLElement {
    const dl = h('dl', { class: 'nbc-summary' });
    const row = (label: string, ...value: Child[]) => {
      dl.appendChild(h('dt', null, label));
      dl.appendChild(h('dd', null, ...value));
    };
    row('kind', t.kind);
    row('status', this._statusBadge(t));
    row('options', optionsText(t.options));
    row('graphs', String(t.graph_count));
    row('breaks', String(t.graph_breaks.length));
    row('recompiles', String(t.recompiles.length));
    row(
      'kernels',
      `${generatedKernels(t).length} generated` +
        (t.kernels.length > generatedKernels(t).length
          ? ` (+${t.kernels.length - generatedKernels(t).length} extern/wrapper)`
          : '')
    );
    row('compile time', t.compile_time_s > 0 ? formatSeconds(t.compile_time_s) : '—');
    if (t.compiled_object) {
      row('compiled as', h('code', null, t.compiled_object));
    }
    if (t.wrapper) {
      row('wrapper', t.wrapper);
    }
    if (t.cell.execution_count !== null || t.cell.cell_id) {
      const label = this._source?.cellLabel(t.cell);
      row(
        'defined in',
        button(
          label ? `cell ${label}` : 'its cell',
          () => void this._source?.reveal(t.cell, null),
          'nbc-link',
          'Show the defining cell'
        )
      );
    }
    const wrap = h('div', { class: 'nbc-summary-wrap' }, dl);
    if (t.error) {
      const err = t.error;
      wrap.appendChild(
        h(
          'div',
          { class: 'nbc-error' },
          h('b', null, err.type || 'error'),
          ': ',
          err.message,
          err.lineno !== null
            ? this._sourceLink(t.cell, err.lineno, err.line)
            : null
        )
      );
    }
    for (const note of t.notes) {
      wrap.appendChild(h('div', { class: 'nbc-note' }, note));
    }
    if (t.truncated) {
      wrap.appendChild(
        h(
          'div',
          { class: 'nbc-note' },
          'Long texts were capped in the published record; ',
          h('code', null, `nbcompile.report(${t.name})`),
          ' in the kernel has them whole.'
        )
      );
    }
    return wrap;
  }

  private _section(
    key: string,
    title: string,
    count: number,
    defaultOpen: boolean,
    content: () => HTMLElement
  ): HTMLElement {
    const open = this._open.get(key) ?? (defaultOpen && count > 0);
    const details = h('details', {
      class: 'nbc-section',
      data: { section: key.split(':').pop() || key }
    });
    details.open = open;
    details.appendChild(
      h(
        'summary',
        null,
        h('span', { class: 'nbc-section-title' }, title),
        h('span', { class: 'nbc-count' }, String(count))
      )
    );
    let filled = false;
    const fill = () => {
      if (!filled) {
        filled = true;
        details.appendChild(content());
      }
    };
    if (open) {
      fill();
    }
    details.addEventListener('toggle', () => {
      this._open.set(key, details.open);
      if (details.open) {
        fill();
        for (const v of this._views.values()) {
          v.refresh();
        }
      }
    });
    return details;
  }

  private _sourceLink(cell: ICellRef, lineno: number | null, line: string): HTMLElement {
    return button(
      [
        h('span', { class: 'nbc-lineno' }, lineno !== null ? `line ${lineno}` : 'cell'),
        h('code', { class: 'nbc-line' }, line.trim() || '(source not available)')
      ].reduce((frag, n) => {
        frag.appendChild(n);
        return frag;
      }, document.createDocumentFragment()),
      () => void this._source?.reveal(cell, lineno),
      'nbc-source-link',
      'Show this line in the notebook'
    );
  }

  private _renderBreaks(t: ITargetRecord): HTMLElement {
    if (!t.graph_breaks.length) {
      return h(
        'p',
        { class: 'nbc-muted' },
        t.status === 'pending'
          ? 'Not compiled yet: call it once.'
          : 'No graph breaks: each frame compiled as one graph.'
      );
    }
    const list = h('ol', { class: 'nbc-breaks' });
    for (const gb of t.graph_breaks) {
      list.appendChild(this._renderBreak(t, gb));
    }
    return list;
  }

  private _renderBreak(t: ITargetRecord, gb: IGraphBreak): HTMLElement {
    const item = h('li', { class: 'nbc-break' });
    if (gb.filename && !isCellFile(gb.filename, t.cell)) {
      // A break inside library code: name the file, and link the cell line that led there.
      item.appendChild(
        h(
          'div',
          { class: 'nbc-library-line' },
          h('span', { class: 'nbc-lineno' }, shortPath(gb.filename, gb.lineno)),
          h('code', { class: 'nbc-line' }, gb.line.trim() || '(source not available)')
        )
      );
      const via = [...gb.stack].reverse().find(f => f.filename === t.cell.filename);
      if (via) {
        item.appendChild(h('div', { class: 'nbc-meta' }, 'reached from your cell:'));
        item.appendChild(this._sourceLink(t.cell, via.lineno, via.line));
      }
    } else {
      item.appendChild(this._sourceLink(t.cell, gb.lineno, gb.line));
    }
    item.appendChild(h('div', { class: 'nbc-reason' }, gb.reason || gb.gb_type || 'graph break'));
    if (gb.explanation && !gb.reason.includes(gb.explanation)) {
      item.appendChild(h('div', { class: 'nbc-explanation' }, gb.explanation));
    }
    if (gb.hint) {
      item.appendChild(h('div', { class: 'nbc-hint' }, h('b', null, 'Hint: '), gb.hint));
    }
    if (gb.compile_id) {
      item.appendChild(h('div', { class: 'nbc-meta' }, `first seen in compile ${gb.compile_id}`));
    }
    return item;
  }

  private _renderRecompiles(t: ITargetRecord): HTMLElement {
    if (!t.recompiles.length) {
      return h('p', { class: 'nbc-muted' }, 'No recompiles: the guards held.');
    }
    const list = h('ol', { class: 'nbc-recompiles' });
    for (const rc of t.recompiles) {
      const item = h(
        'li',
        { class: 'nbc-recompile' },
        h('span', { class: 'nbc-compile-id' }, rc.compile_id || '?'),
        h('span', { class: 'nbc-reason' }, rc.reason)
      );
      if (rc.guard && rc.guard !== rc.reason) {
        item.appendChild(
          h('div', { class: 'nbc-guard' }, 'failed guard: ', h('code', null, rc.guard))
        );
      }
      list.appendChild(item);
    }
    return list;
  }

  private _view(key: string): CodeView {
    let v = this._views.get(key);
    if (!v) {
      v = new CodeView(this._editorServices, key);
      this._views.set(key, v);
    }
    return v;
  }

  private _renderCode(t: ITargetRecord): HTMLElement {
    const wrap = h('div', { class: 'nbc-code' });
    if (!t.kernels.length && !t.output_code) {
      wrap.appendChild(
        h(
          'p',
          { class: 'nbc-muted' },
          t.status === 'pending'
            ? 'No code yet: it is generated at the first call.'
            : 'No generated code was captured.'
        )
      );
      return wrap;
    }
    // -1 = the whole output code; otherwise an index into t.kernels.
    const firstKernel = t.kernels.findIndex(k => k.kind === 'kernel');
    let selected = this._selectedKernel.get(t.id);
    if (selected === undefined || selected >= t.kernels.length || (selected < 0 && !t.output_code)) {
      selected = firstKernel >= 0 ? firstKernel : t.output_code ? -1 : 0;
    }
    const table = h('table', { class: 'nbc-kernels' });
    table.appendChild(
      h(
        'thead',
        null,
        h('tr', null, h('th', null, 'kernel'), h('th', null, 'type'), h('th', { class: 'nbc-num' }, 'size'))
      )
    );
    const tbody = h('tbody');
    const view = this._view('code');
    const show = (index: number) => {
      this._selectedKernel.set(t.id, index);
      for (const tr of Array.from(tbody.children)) {
        tr.classList.toggle('nbc-selected', (tr as HTMLElement).dataset.index === String(index));
      }
      if (index < 0) {
        view.setText(t.output_code, 'text/x-python', 'whole output code');
      } else {
        const k = t.kernels[index];
        view.setText(
          k.source,
          editorMimeType(k.language),
          `${k.name} · ${LANGUAGE_LABEL[k.language] ?? k.language}` +
            (k.compile_id ? ` · compile ${k.compile_id}` : '')
        );
      }
    };
    if (t.output_code) {
      tbody.appendChild(
        h(
          'tr',
          { class: 'nbc-kernel-row nbc-all-code', data: { index: '-1' }, onClick: () => show(-1) },
          h('td', { attrs: { colspan: '2' } }, 'whole output code'),
          h('td', { class: 'nbc-num' }, formatSize(t.output_code.length))
        )
      );
    }
    t.kernels.forEach((k, i) => {
      tbody.appendChild(
        h(
          'tr',
          {
            class: `nbc-kernel-row nbc-kind-${/^[a-z]+$/.test(k.kind) ? k.kind : 'other'}`,
            data: { index: String(i) },
            title: k.compile_id ? `compile ${k.compile_id}` : undefined,
            onClick: () => show(i)
          },
          h('td', { class: 'nbc-kernel-name', title: k.name }, k.name),
          h(
            'td',
            { class: 'nbc-kernel-type', title: `${LANGUAGE_LABEL[k.language] ?? k.language} ${k.kind}` },
            k.kind === 'kernel' ? (LANGUAGE_LABEL[k.language] ?? k.language) : k.kind
          ),
          h('td', { class: 'nbc-num' }, formatSize(k.size))
        )
      );
    });
    table.appendChild(tbody);
    wrap.appendChild(h('div', { class: 'nbc-kernels-wrap' }, table));
    wrap.appendChild(view.node);
    show(selected);
    return wrap;
  }

  private _renderPicker(
    t: ITargetRecord,
    key: string,
    items: { label: string; text: string }[],
    mimeType: string,
    empty: string
  ): HTMLElement {
    const wrap = h('div', { class: `nbc-${key}` });
    if (!items.length) {
      wrap.appendChild(h('p', { class: 'nbc-muted' }, empty));
      return wrap;
    }
    const stateKey = `${t.id}:${key}`;
    let selected = this._picked.get(stateKey) ?? 0;
    if (selected >= items.length) {
      selected = 0;
    }
    const view = this._view(key);
    const select = h('select', { class: 'nbc-select' });
    items.forEach((item, i) => {
      const opt = h('option', null, item.label);
      opt.value = String(i);
      select.appendChild(opt);
    });
    select.value = String(selected);
    const show = (i: number) => {
      this._picked.set(stateKey, i);
      view.setText(items[i].text, mimeType, items[i].label);
    };
    select.addEventListener('change', () => show(Number(select.value)));
    if (items.length > 1) {
      wrap.appendChild(select);
    }
    wrap.appendChild(view.node);
    show(selected);
    return wrap;
  }

  private _renderGraphs(t: ITargetRecord): HTMLElement {
    const items: { label: string; text: string }[] = [];
    for (const c of t.compiles) {
      c.graphs.forEach((g, i) => {
        items.push({
          label:
            `compile ${c.compile_id} · ${c.frame}` +
            (c.graphs.length > 1 ? ` · graph ${i + 1}` : '') +
            (c.graph_op_count ? ` · ${plural(c.graph_op_count, 'op')}` : ''),
          text: g
        });
      });
    }
    return this._renderPicker(t, 'graphs', items, 'text/x-python', 'No FX graphs captured yet.');
  }

  private _renderGuards(t: ITargetRecord): HTMLElement {
    const items = t.compiles
      .filter(c => c.guards)
      .map(c => ({ label: `compile ${c.compile_id} · ${c.frame}`, text: c.guards.replace(/^\n+/, '') }));
    return this._renderPicker(t, 'guards', items, 'text/plain', 'No guards captured yet.');
  }

  private _renderCompiles(t: ITargetRecord): HTMLElement {
    if (!t.compiles.length) {
      return h('p', { class: 'nbc-muted' }, 'Nothing compiled yet.');
    }
    const table = h('table', { class: 'nbc-table nbc-compiles' });
    table.appendChild(
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, 'compile'),
          h('th', null, 'frame'),
          h('th', null, 'status'),
          h('th', null, 'ops'),
          h('th', null, 'time'),
          h('th', null, 'cache')
        )
      )
    );
    const tbody = h('tbody');
    for (const c of t.compiles) {
      const cache = Object.entries(c.cache)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k.replace(/_cache_/, ' ').replace(/_/g, ' ')}${n > 1 ? ` ×${n}` : ''}`)
        .join(', ');
      const total = c.times.total_s ?? c.times.entire_frame_compile_time_s;
      tbody.appendChild(
        h(
          'tr',
          { title: c.recompile_reason ? `recompiled: ${c.recompile_reason}` : undefined },
          h('td', null, c.compile_id),
          h('td', { class: 'nbc-frame' }, c.frame),
          h('td', null, c.status + (c.error ? `: ${c.error}` : '')),
          h('td', { class: 'nbc-num' }, String(c.graph_op_count)),
          h('td', { class: 'nbc-num' }, total !== undefined ? formatSeconds(total) : ''),
          h('td', null, cache)
        )
      );
    }
    table.appendChild(tbody);
    return h('div', { class: 'nbc-table-wrap' }, table);
  }

  private _renderTiming(p: ITimingPayload): HTMLElement {
    const key = `timing:${p.key}`;
    const count = p.tables.reduce((n, t) => n + t.rows.length, 0);
    return this._section(key, `Timing: ${p.title}`, count, true, () => renderTiming(p));
  }

  /** Tick "compiling… Ns" once a second while something compiles. */
  private _updateTimer(): void {
    const compiling = this._body.querySelectorAll('[data-compiling-since]');
    window.clearInterval(this._timer);
    this._timer = 0;
    if (!compiling.length) {
      return;
    }
    this._timer = window.setInterval(() => {
      const now = nowSeconds();
      this._body.querySelectorAll<HTMLElement>('[data-compiling-since]').forEach(el => {
        const since = Number(el.dataset.compilingSince);
        const s = now - since;
        el.textContent = s >= 0 && s < 86400 ? `compiling… ${s.toFixed(0)}s` : 'compiling…';
      });
    }, 1000);
  }

  private _unsubscribe(): void {
    for (const u of this._unsubscribers) {
      u();
    }
    this._unsubscribers = [];
  }

  private _editorServices: IEditorServices;
  private _header: HTMLDivElement;
  private _body: HTMLDivElement;
  private _source: IInspectorSource | null = null;
  private _unsubscribers: (() => void)[] = [];
  private _selected: string | null = null;
  private _open = new Map<string, boolean>();
  private _selectedKernel = new Map<string, number>();
  private _picked = new Map<string, number>();
  private _views = new Map<string, CodeView>();
  private _renderPending = false;
  private _timer = 0;
}
