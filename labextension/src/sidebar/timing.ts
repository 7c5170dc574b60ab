/** A "Timing" section per timing record (`nbcompile.compare` results) of the notebook. */

import { h } from '../dom';
import { clip } from '../format';
import { ITimingPayload } from '../model';
import { renderTiming } from '../timingview';

export function timingSection(p: ITimingPayload, open: Map<string, boolean>): HTMLElement {
  const key = `timing:${p.key}`;
  let count = 0;
  for (const t of p.tables) {
    count += t.rows.length;
  }
  const details = h(
    'details',
    { class: 'nbc-section', data: { section: 'timing' } },
    h(
      'summary',
      null,
      h('span', { class: 'nbc-section-title' }, `Timing: ${clip(p.title, 200)}`),
      h('span', { class: 'nbc-count' }, String(count))
    )
  );
  let filled = false;
  const fill = () => {
    if (!filled) {
      filled = true;
      details.appendChild(renderTiming(p));
    }
  };
  details.open = open.get(key) ?? count > 0;
  if (details.open) {
    fill();
  }
  details.addEventListener('toggle', () => {
    open.set(key, details.open);
    if (details.open) {
      fill();
    }
  });
  return details;
}
