/**
 * The "Recompiles" section: each recompile's compile id, its words (the record's `text`:
 * the reason, the cells involved, each a link to its cell) and failed guard.
 */

import { appendPaged, button, h } from '../ui/dom';
import { cellMentions, clip } from '../ui/format';
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
          // The record's words (a record older than `text`: torch's reason alone)
          h(
            'span',
            { class: 'nbc-reason' },
            ...this._linked(rc.text || rc.reason)
          )
        );
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

  /** `text`, each cell it names a link to that cell. */
  private _linked(text: string): (string | HTMLElement)[] {
    return cellMentions(clip(text, MAX_TEXT)).map(part =>
      typeof part === 'string'
        ? part
        : button(
            `cell [${part}]`,
            () =>
              void this.host.source?.reveal(
                { filename: '', execution_count: part, cell_id: null },
                null
              ),
            'nbc-link',
            'Show this cell'
          )
    );
  }
}
