/**
 * A trace's ranks x compile-ids grid: one row per rank, one column per compile id (in
 * frame, then attempt order), each cell a compile's status mark; the compile ids where
 * the ranks differ are marked, and a click on a cell selects that compile.
 */

import { appendPaged, h } from '../ui/dom';
import { classSuffix, clip, plural, rankText } from '../ui/format';
import { ITraceCompile, ITracePayload } from '../model/trace';

/** Columns (compile ids) drawn in the grid (the frame list below has all), and ranks
 * drawn per page of rows (a "Show more" row draws the next). */
const MAX_COLUMNS = 120;
const ROWS_PAGE = 32;

const STATUS_MARK = new Map<string, string>([
  ['compiled', '✓'],
  ['cache_hit', '⚡'],
  ['restarted', '↻'],
  ['failed', '✗']
]);

/** `0/0`, `0/1`, `1/0`: compile ids in frame, then attempt order. */
function compareIds(a: string, b: string): number {
  const pa = a.split(/[/_]/).map(Number);
  const pb = b.split(/[/_]/).map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? -1;
    const y = pb[i] ?? -1;
    if (x !== y) {
      return Number.isNaN(x) || Number.isNaN(y) ? a.localeCompare(b) : x - y;
    }
  }
  return 0;
}

/** The grid, its legend above; `cells` gets each drawn compile's cell (to mark the
 * selected one). */
export function renderGrid(
  p: ITracePayload,
  cells: Map<ITraceCompile, HTMLElement>,
  select: (c: ITraceCompile) => void
): HTMLElement {
  const ids: string[] = [];
  const seenIds = new Set<string>();
  const rankSet = new Set<number | null>();
  const at = new Map<string, ITraceCompile>();
  for (const c of p.compiles) {
    if (!seenIds.has(c.compile_id)) {
      seenIds.add(c.compile_id);
      ids.push(c.compile_id);
    }
    rankSet.add(c.rank);
    const key = `${c.rank}\u0000${c.compile_id}`;
    if (!at.has(key)) {
      at.set(key, c);
    }
  }
  ids.sort(compareIds);
  const ranks = [...rankSet].sort((a, b) => (a ?? -1) - (b ?? -1));
  const marked = new Set(p.divergences.map(d => d.compile_id));
  const shownIds = ids.slice(0, MAX_COLUMNS);
  const head = h('tr', null, h('th', null, ''));
  for (const id of shownIds) {
    head.appendChild(
      h(
        'th',
        {
          class: marked.has(id) ? 'nbc-divergent' : undefined,
          title: marked.has(id) ? 'the ranks differ here' : undefined
        },
        clip(id, 30) + (marked.has(id) ? ' ⚠' : '')
      )
    );
  }
  // One listener for the whole grid; a cell's tooltip is written when first hovered.
  const ofCell = new WeakMap<Element, ITraceCompile>();
  const cellOf = (ev: Event): [HTMLElement, ITraceCompile] | null => {
    const el =
      ev.target instanceof Element
        ? ev.target.closest('.nbc-trace-cell')
        : null;
    const c = el ? ofCell.get(el) : undefined;
    return el && c ? [el as HTMLElement, c] : null;
  };
  const row = (rank: number | null): HTMLElement => {
    const tr = h('tr', null, h('th', null, rankText(rank)));
    for (const id of shownIds) {
      const c = at.get(`${rank}\u0000${id}`);
      if (!c) {
        tr.appendChild(h('td', { class: 'nbc-trace-none' }, '—'));
        continue;
      }
      const b = h(
        'button',
        {
          class:
            `nbc-trace-cell nbc-trace-${classSuffix(c.status)}` +
            (marked.has(id) ? ' nbc-divergent' : ''),
          attrs: { type: 'button' }
        },
        STATUS_MARK.get(c.status) ?? '?'
      );
      ofCell.set(b, c);
      cells.set(c, b);
      tr.appendChild(h('td', null, b));
    }
    return tr;
  };
  const body = h('tbody');
  appendPaged(body, ranks, row, ROWS_PAGE, 'ranks');
  const table = h(
    'table',
    {
      class: 'nbc-table nbc-trace-grid',
      attrs: { 'aria-label': 'compiles by rank and compile id' }
    },
    h('thead', null, head),
    body
  );
  table.addEventListener('click', ev => {
    const hit = cellOf(ev);
    if (hit) {
      select(hit[1]);
    }
  });
  table.addEventListener('mouseover', ev => {
    const hit = cellOf(ev);
    if (hit && !hit[0].title) {
      const [el, c] = hit;
      el.title =
        `${clip(c.compile_id, 30)} on ${rankText(c.rank)}: ${clip(c.status, 30)}` +
        (c.fail_reason ? ` — ${clip(c.fail_reason, 300)}` : '') +
        ` · ${clip(c.function || c.frame, 100)}`;
    }
  });
  const wrap = h('div', { class: 'nbc-table-wrap' }, table);
  const cut: string[] = [];
  if (ids.length > MAX_COLUMNS) {
    cut.push(`${ids.length - MAX_COLUMNS} more compile ids`);
  }
  const legend = h(
    'div',
    { class: 'nbc-meta nbc-trace-legend' },
    [...STATUS_MARK]
      .map(([s, m]) => `${m} ${s.replace('_', ' ')}`)
      .join('  ·  '),
    ` · ${plural(ranks.length, 'rank')} × ${plural(ids.length, 'compile id')}`,
    cut.length
      ? ` · not in the grid: ${cut.join(', ')} (the frame list below has them)`
      : ''
  );
  return h('div', { class: 'nbc-trace-gridwrap' }, legend, wrap);
}
