/**
 * The marks of a report published within the output budget (a trace, a profile): one
 * note per cut, at most ten, naming what was left out and the kernel expression that
 * has it. Text only.
 */

import { h } from '../ui/dom';
import { clip } from '../ui/format';
import { IOmission } from '../model/parts';

/** `label` words one cut, e.g. "more kernels" for `{field: 'kernels'}`. */
export function omissionNotes(
  marks: IOmission[],
  label: (o: IOmission) => string
): HTMLElement[] {
  return marks
    .slice(0, 10)
    .map(o =>
      h(
        'div',
        { class: 'nbc-note nbc-omitted' },
        `${o.count} ${label(o)} left out of this output to keep the notebook small: `,
        h('code', null, clip(o.how, 300)),
        ' has them.'
      )
    );
}
