/**
 * Compile time by phase as one stacked bar (Dynamo tracing, AOTAutograd, Inductor
 * passes, code generation, C++/Triton compile, ...): a segment per phase, its width the
 * phase's share of the longest bar in view, its name and time in the tooltip and in an
 * optional legend. Shared by the Compiles section and the trace view.
 */

import { h } from '../ui/dom';
import { clip, formatSeconds } from '../ui/format';
import { phaseColour, phaseSegments } from './phases';

/**
 * One compile's phases as a bar `scale` seconds wide (the longest compile in view, so
 * bars compare); empty text when there are no phases.
 */
export function phaseBar(
  phases: ReadonlyMap<string, number>,
  scale: number,
  legend = false
): HTMLElement {
  const segments = phaseSegments(phases);
  let total = 0;
  for (const [, s] of segments) {
    total += s;
  }
  const wrap = h('div', { class: 'nbc-phases' });
  if (!segments.length) {
    return wrap;
  }
  const width = scale > 0 ? Math.min(1, total / scale) : 1;
  const bar = h('div', {
    class: 'nbc-phase-bar',
    attrs: {
      role: 'img',
      'aria-label': segments
        .map(([n, s]) => `${n} ${formatSeconds(s)}`)
        .join(', ')
    }
  });
  bar.style.width = `${Math.max(2, width * 100).toFixed(1)}%`;
  for (const [name, seconds] of segments) {
    const seg = h('div', {
      class: `nbc-phase nbc-phase-${phaseColour(name)}`,
      title: `${clip(name, 100)}: ${formatSeconds(seconds)}`
    });
    // Shares, not seconds: a flex-grow sum below 1 would leave part of the bar empty.
    seg.style.flexGrow = String(total > 0 ? (seconds / total) * 1000 : 1);
    bar.appendChild(seg);
  }
  wrap.appendChild(bar);
  if (legend) {
    const list = h('ul', { class: 'nbc-phase-legend' });
    for (const [name, seconds] of segments) {
      list.appendChild(
        h(
          'li',
          null,
          h('span', {
            class: `nbc-phase-swatch nbc-phase-${phaseColour(name)}`
          }),
          `${clip(name, 100)} ${formatSeconds(seconds)}`
        )
      );
    }
    wrap.appendChild(list);
  }
  return wrap;
}
