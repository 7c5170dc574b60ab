/** The "Recompiles" section: each recompile's compile id, reason and failed guard. */

import { appendPaged, button, h } from '../ui/dom';
import { clip } from '../ui/format';
import { ITargetRecord } from '../model/target';
import { ISectionHost, MAX_TEXT, PAGE, Section } from './section';

export class RecompilesSection extends Section {
  constructor(host: ISectionHost) {
    super(host, 'recompiles', 'Recompiles', true);
  }

  protected count(t: ITargetRecord): number {
    return t.recompiles.length;
  }

  protected render(t: ITargetRecord): HTMLElement {
    if (!t.recompiles.length) {
      return h('p', { class: 'nbc-muted' }, 'No recompiles: the guards held.');
    }
    const list = h('ol', { class: 'nbc-recompiles' });
    appendPaged(
      list,
      t.recompiles,
      rc => {
        const item = h(
          'li',
          { class: 'nbc-recompile' },
          h(
            'span',
            { class: 'nbc-compile-id' },
            clip(rc.compile_id, 100) || '?'
          ),
          h('span', { class: 'nbc-reason' }, clip(rc.reason, MAX_TEXT))
        );
        if (rc.cell !== null) {
          item.appendChild(this._cells(rc.changes, rc.changed_by, rc.cell));
        }
        if (rc.guard && rc.guard !== rc.reason) {
          item.appendChild(
            h(
              'div',
              { class: 'nbc-guard' },
              'failed guard: ',
              h('code', null, clip(rc.guard, MAX_TEXT))
            )
          );
        }
        return item;
      },
      PAGE,
      'recompiles'
    );
    return list;
  }

  /** Who changed what the guard reads and the call that paid: each cell a link to it. */
  private _cells(changes: string[], by: number[], call: number): HTMLElement {
    const link = (n: number) =>
      button(
        `cell [${n}]`,
        () =>
          void this.host.source?.reveal(
            { filename: '', execution_count: n, cell_id: null },
            null
          ),
        'nbc-link',
        'Show this cell'
      );
    const who = changes.length
      ? [clip(changes.join('; '), MAX_TEXT), ' (', ...by.map(link), ')']
      : ['which cell changed it is not known'];
    return h(
      'div',
      { class: 'nbc-cells' },
      ...who,
      '; the call in ',
      link(call)
    );
  }
}
