/**
 * The timing record (`nbcompile.compare`) as DOM: a bar chart and its table. Shared by
 * the sidebar and the inline renderer; text via textContent only; bounded work.
 */

import { appendPaged, h } from '../ui/dom';
import { clip, formatBytes, formatNumber } from '../ui/format';
import { ITimingPayload } from '../model/timing';

/** Bars and table rows shown at once (more on request). */
const PAGE = 50;
/** Longest cell or note text shown. */
const MAX_TEXT = 500;

export function renderTiming(p: ITimingPayload): HTMLElement {
  const wrap = h('div', { class: 'nbc-timing' });
  if (p.chart.length) {
    renderSpeedups(wrap, p);
  }
  if (p.memoryChart.length) {
    renderMemory(wrap, p);
  }
  renderTables(wrap, p);
  appendPaged(
    wrap,
    p.notes,
    n => h('div', { class: 'nbc-note' }, clip(n, MAX_TEXT)),
    20,
    'notes'
  );
  return wrap;
}

/** Peak memory of one call per row, eager first, beside the speedups. */
function renderMemory(wrap: HTMLElement, p: ITimingPayload): void {
  let max = 0;
  for (const b of p.memoryChart) {
    max = Math.max(max, b.value);
  }
  max = max || 1;
  const eager = p.memoryChart[0]?.value ?? 0;
  const chart = h('div', {
    class: 'nbc-chart',
    attrs: { role: 'img', 'aria-label': 'peak memory by row' }
  });
  appendPaged(
    chart,
    p.memoryChart,
    bar => {
      const fill = h('div', { class: 'nbc-bar-fill nbc-bar-memory' });
      fill.style.width = `${Math.max(1, (bar.value / max) * 100).toFixed(1)}%`;
      const ratio =
        eager > 0 && bar !== p.memoryChart[0]
          ? ` (${(bar.value / eager).toFixed(2)}×)`
          : '';
      return h(
        'div',
        { class: 'nbc-bar' },
        h('span', { class: 'nbc-bar-label' }, clip(bar.label, 80)),
        h('div', { class: 'nbc-bar-track' }, fill),
        h(
          'span',
          { class: 'nbc-bar-value' },
          `${formatBytes(bar.value)}${ratio}`
        )
      );
    },
    PAGE,
    'bars'
  );
  wrap.appendChild(
    h(
      'div',
      { class: 'nbc-meta' },
      'peak memory of one call (above what was in use before it; × eager)'
    )
  );
  wrap.appendChild(chart);
}

function renderSpeedups(wrap: HTMLElement, p: ITimingPayload): void {
  {
    let max = 0;
    for (const b of p.chart) {
      max = Math.max(max, Math.abs(b.value));
    }
    max = max || 1;
    const unit = p.chart[0].unit;
    const speedup = unit.startsWith('speedup');
    const chart = h('div', {
      class: 'nbc-chart',
      attrs: { role: 'img', 'aria-label': `${unit} by row` }
    });
    appendPaged(
      chart,
      p.chart,
      bar => {
        const fill = h('div', { class: 'nbc-bar-fill' });
        fill.style.width = `${Math.max(1, (Math.abs(bar.value) / max) * 100).toFixed(1)}%`;
        if (speedup && bar.value < 1) {
          fill.classList.add('nbc-bar-slower');
        }
        const track = h('div', { class: 'nbc-bar-track' }, fill);
        if (speedup && max >= 1) {
          // The eager baseline (1.0x).
          const mark = h('div', {
            class: 'nbc-bar-baseline',
            title: 'eager (1.0×)'
          });
          mark.style.left = `${((1 / max) * 100).toFixed(1)}%`;
          track.appendChild(mark);
        }
        return h(
          'div',
          { class: 'nbc-bar' },
          h('span', { class: 'nbc-bar-label' }, clip(bar.label, 80)),
          track,
          h(
            'span',
            { class: 'nbc-bar-value' },
            speedup ? `${bar.value.toFixed(2)}×` : formatNumber(bar.value)
          )
        );
      },
      PAGE,
      'bars'
    );
    wrap.appendChild(h('div', { class: 'nbc-meta' }, unit));
    wrap.appendChild(chart);
  }
}

function renderTables(wrap: HTMLElement, p: ITimingPayload): void {
  for (const t of p.tables) {
    const table = h('table', { class: 'nbc-table' });
    table.appendChild(
      h('thead', null, h('tr', null, ...t.columns.map(c => h('th', null, c))))
    );
    const tbody = h('tbody');
    appendPaged(
      tbody,
      t.rows,
      r =>
        h(
          'tr',
          null,
          ...r.map(v =>
            h(
              'td',
              { class: typeof v === 'number' ? 'nbc-num' : undefined },
              typeof v === 'number'
                ? formatNumber(v)
                : v === null
                  ? ''
                  : clip(String(v), MAX_TEXT)
            )
          )
        ),
      PAGE,
      'rows'
    );
    table.appendChild(tbody);
    if (p.tables.length > 1) {
      wrap.appendChild(h('div', { class: 'nbc-meta' }, t.title));
    }
    wrap.appendChild(h('div', { class: 'nbc-table-wrap' }, table));
  }
}
