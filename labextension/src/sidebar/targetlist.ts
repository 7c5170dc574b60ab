/** The list of the notebook's targets (name, kind, status, counts); one is selected. */

import { appendPaged, h } from '../ui/dom';
import { clip, countsText } from '../ui/format';
import { handled, keepKeys } from '../ui/keys';
import { ITargetEntry } from '../records/store';
import { statusBadge } from './summary';

/** Rows rendered per page; a long list grows by pages on request. */
const PAGE = 200;

export class TargetList {
  constructor(private readonly _onSelect: (id: string) => void) {}

  readonly node = h('div', {
    class: 'nbc-target-list',
    attrs: { role: 'list' }
  });

  /** Render the list afresh (its first page). */
  render(entries: readonly ITargetEntry[], selectedId: string | null): void {
    this._rows.clear();
    this._selectedId = selectedId;
    this.node.replaceChildren();
    appendPaged(this.node, entries, e => this._row(e), PAGE, 'targets');
  }

  /** Whether every id has a rendered row (then `updateRows` suffices). */
  hasRows(ids: Iterable<string>): boolean {
    for (const id of ids) {
      if (!this._rows.has(id)) {
        return false;
      }
    }
    return true;
  }

  /** Re-render the rows of these entries in place. */
  updateRows(entries: readonly ITargetEntry[]): void {
    for (const e of entries) {
      const old = this._rows.get(e.record.id);
      if (old) {
        old.replaceWith(this._row(e));
      }
    }
  }

  /** Move the selection mark without re-rendering anything. */
  setSelected(id: string | null): void {
    if (id === this._selectedId) {
      return;
    }
    if (this._selectedId) {
      this._rows.get(this._selectedId)?.classList.remove('nbc-selected');
    }
    this._selectedId = id;
    const row = id ? this._rows.get(id) : undefined;
    row?.classList.add('nbc-selected');
    row?.scrollIntoView({ block: 'nearest' });
  }

  private _row(e: ITargetEntry): HTMLElement {
    const t = e.record;
    const row = h(
      'div',
      {
        class:
          'nbc-target-row' + (t.id === this._selectedId ? ' nbc-selected' : ''),
        data: { targetId: t.id },
        attrs: { role: 'listitem', tabindex: '0' },
        onClick: () => this._onSelect(t.id)
      },
      h(
        'div',
        { class: 'nbc-target-line' },
        h('span', { class: 'nbc-target-name' }, clip(t.name, 200)),
        h('span', { class: 'nbc-badge' }, clip(t.kind, 30)),
        statusBadge(t)
      ),
      h('div', { class: 'nbc-target-counts' }, countsText(t))
    );
    keepKeys(row, ['Enter', 'Space']);
    row.addEventListener('keydown', ev => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        handled(ev);
        this._onSelect(t.id);
      }
    });
    this._rows.set(t.id, row);
    return row;
  }

  private _rows = new Map<string, HTMLElement>();
  private _selectedId: string | null = null;
}
