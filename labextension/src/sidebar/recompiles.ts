/** The "Recompiles" section: each recompile's compile id, reason and failed guard. */

import { appendPaged, h } from '../ui/dom';
import { clip } from '../ui/format';
import { ITargetRecord } from '../model';
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
}
