/**
 * What every inspector section shares: the notebook it reads from (`IInspectorSource`),
 * links back to cell lines, and `Section`, a collapsible part of the selected target's
 * view that renders its body lazily (when open) and only when its target changed.
 */

import { ISignal } from '@lumino/signaling';

import { ICodeView } from '../ui/codesink';
import { button, h } from '../ui/dom';
import { clip } from '../ui/format';
import { ICellRef, ITargetRecord } from '../model/target';
import { RecordStore } from '../records/store';

/** What the sidebar shows: one notebook's records and a line about their origin. */
export interface IInspectorSource {
  readonly store: RecordStore;
  /** The notebook's name, for the header. */
  readonly title: string;
  /** e.g. "kernel idle" or "no kernel: read from saved outputs". */
  readonly state: string;
  /** Emitted when `title` or `state` changed. */
  readonly stateChanged: ISignal<IInspectorSource, void>;
  /** The prompt label (`[2]`) of the cell a record points to, if it is in the notebook. */
  cellLabel(cell: ICellRef): string | null;
  /** Activate the cell a record points to and scroll to `lineno` (1-based, editor lines). */
  reveal(cell: ICellRef, lineno: number | null): Promise<boolean>;
  /** The panel shows `record`: if its published copy was cut, ask the kernel for it whole. */
  wantWhole?(record: ITargetRecord): void;
}

/** What sections get from the panel. */
export interface ISectionHost {
  readonly source: IInspectorSource | null;
  /** The panel's shared read-only code view named `key` (created on first use). */
  codeView(key: string): ICodeView;
  /** Open `record`'s source and generated code side by side in a main-area tab. */
  openTab?(record: ITargetRecord): void;
}

/** Longest single text (reason, hint, note, line) shown in the sidebar. */
export const MAX_TEXT = 2000;
/** Items of a list (breaks, recompiles, kernels, compiles) rendered per page. */
export const PAGE = 100;

/** A button showing `line N` and the source line; reveals it in the notebook. */
export function sourceLink(
  host: ISectionHost,
  cell: ICellRef,
  lineno: number | null,
  line: string
): HTMLElement {
  const label = document.createDocumentFragment();
  label.appendChild(
    h(
      'span',
      { class: 'nbc-lineno' },
      lineno !== null ? `line ${lineno}` : 'cell'
    )
  );
  label.appendChild(
    h(
      'code',
      { class: 'nbc-line' },
      clip(line.trim(), 300) || '(source not available)'
    )
  );
  return button(
    label,
    () => void host.source?.reveal(cell, lineno),
    'nbc-source-link',
    'Show this line in the notebook'
  );
}

export abstract class Section {
  constructor(
    protected readonly host: ISectionHost,
    readonly key: string,
    title: string,
    private readonly _defaultOpen: boolean
  ) {
    this._count = h('span', { class: 'nbc-count' });
    this._body = h('div', { class: 'nbc-section-body' });
    this.node = h(
      'details',
      { class: 'nbc-section', data: { section: key } },
      h(
        'summary',
        null,
        h('span', { class: 'nbc-section-title' }, title),
        this._count
      ),
      this._body
    );
    this.node.addEventListener('toggle', () => {
      if (this.node.open === this._expectedOpen) {
        return; // our own update(), not the user
      }
      this._expectedOpen = this.node.open;
      if (this._target) {
        this._openState.set(this._target.id, this.node.open);
      }
      if (this.node.open) {
        this._fill();
      }
    });
  }

  readonly node: HTMLDetailsElement;

  /** Show `t`; a no-op when it is the record already shown. */
  update(t: ITargetRecord): void {
    if (t === this._target) {
      return;
    }
    const count = this.count(t);
    this._count.textContent = String(count);
    this._target = t;
    this._dirty = true;
    const open = this._openState.get(t.id) ?? (this._defaultOpen && count > 0);
    this._expectedOpen = open;
    this.node.open = open;
    if (open) {
      this._fill();
    }
  }

  /** Open this section on its target, rendered anew, and scroll it into view. */
  show(): void {
    if (!this._target) {
      return;
    }
    this._dirty = true;
    this._expectedOpen = true;
    this.node.open = true;
    this._openState.set(this._target.id, true);
    this._fill();
    this.node.scrollIntoView?.({ block: 'nearest' });
  }

  /** Call after the panel was shown again (code views measure themselves). */
  refresh(): void {
    /* sections with code views override */
  }

  protected abstract count(t: ITargetRecord): number;
  protected abstract render(t: ITargetRecord): HTMLElement;

  private _fill(): void {
    if (!this._dirty || !this._target) {
      return;
    }
    this._dirty = false;
    this._body.replaceChildren(this.render(this._target));
    this.refresh();
  }

  private _count: HTMLSpanElement;
  private _body: HTMLDivElement;
  private _target: ITargetRecord | null = null;
  private _dirty = false;
  private _expectedOpen = false;
  private _openState = new Map<string, boolean>();
}
