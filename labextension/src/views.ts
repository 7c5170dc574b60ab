/**
 * DOM views shared by the sidebar and the inline renderer (text via textContent only).
 */

import { h } from './dom';
import {
  formatSeconds,
  generatedKernels,
  ITargetRecord,
  ITimingPayload
} from './records';

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The counts line shared by the target list and the inline renderer. */
export function countsText(t: ITargetRecord): string {
  const parts = [
    plural(t.graph_count, 'graph'),
    plural(t.graph_breaks.length, 'break'),
    plural(t.recompiles.length, 'recompile'),
    plural(generatedKernels(t).length, 'kernel')
  ];
  if (t.compile_time_s > 0) {
    parts.push(formatSeconds(t.compile_time_s));
  }
  return parts.join(' · ');
}

export function formatNumber(v: number): string {
  if (Number.isInteger(v)) {
    return String(v);
  }
  const a = Math.abs(v);
  if (a !== 0 && (a < 0.001 || a >= 1e6)) {
    return v.toExponential(2);
  }
  return v.toPrecision(3);
}

/** A timing record: a bar chart (when a time column exists) and its tables. */
export function renderTiming(p: ITimingPayload): HTMLElement {
  const wrap = h('div', { class: 'nbc-timing' });
  if (p.chart.length) {
    const max = Math.max(...p.chart.map(b => Math.abs(b.value))) || 1;
    const chart = h('div', { class: 'nbc-chart', attrs: { role: 'img' } });
    chart.setAttribute('aria-label', `${p.chart[0].unit} by row`);
    const speedup = /^speedup/.test(p.chart[0].unit);
    for (const bar of p.chart) {
      const fill = h('div', { class: 'nbc-bar-fill' });
      fill.style.width = `${Math.max(1, (Math.abs(bar.value) / max) * 100).toFixed(1)}%`;
      if (speedup && bar.value < 1) {
        fill.classList.add('nbc-bar-slower');
      }
      const track = h('div', { class: 'nbc-bar-track' }, fill);
      if (speedup && max >= 1) {
        // The eager baseline (1.0x).
        const mark = h('div', { class: 'nbc-bar-baseline', title: 'eager (1.0×)' });
        mark.style.left = `${((1 / max) * 100).toFixed(1)}%`;
        track.appendChild(mark);
      }
      chart.appendChild(
        h(
          'div',
          { class: 'nbc-bar' },
          h('span', { class: 'nbc-bar-label' }, bar.label),
          track,
          h('span', { class: 'nbc-bar-value' }, speedup ? `${bar.value.toFixed(2)}×` : formatNumber(bar.value))
        )
      );
    }
    wrap.appendChild(h('div', { class: 'nbc-meta' }, p.chart[0].unit));
    wrap.appendChild(chart);
  }
  for (const t of p.tables) {
    const table = h('table', { class: 'nbc-table' });
    table.appendChild(h('thead', null, h('tr', null, ...t.columns.map(c => h('th', null, c)))));
    const tbody = h('tbody');
    for (const r of t.rows) {
      tbody.appendChild(
        h(
          'tr',
          null,
          ...r.map(v =>
            h(
              'td',
              { class: typeof v === 'number' ? 'nbc-num' : undefined },
              typeof v === 'number' ? formatNumber(v) : v === null ? '' : String(v)
            )
          )
        )
      );
    }
    table.appendChild(tbody);
    if (p.tables.length > 1) {
      wrap.appendChild(h('div', { class: 'nbc-meta' }, t.title));
    }
    wrap.appendChild(h('div', { class: 'nbc-table-wrap' }, table));
  }
  for (const n of p.notes) {
    wrap.appendChild(h('div', { class: 'nbc-note' }, n));
  }
  return wrap;
}
