/**
 * A trace (`nbcompile.open_trace`: a TORCH_TRACE log or a job's directory of rank logs)
 * as DOM: where the ranks compiled differently, a ranks x compile-ids grid (status
 * colours, divergent compile ids marked; a click opens that compile), the stack of
 * frames that compiled (like tlparse's stack trie), and the compile view (graph breaks
 * with file:line, recompile reason, phases, cache, FX graphs, guards and kernels in a
 * code view). Shared by the sidebar and the inline renderer; text only; bounded work.
 */

import { ICodeSink } from '../ui/codesink';
import { appendPaged, button, externalLink, h } from '../ui/dom';
import {
  classSuffix,
  clip,
  editorMimeType,
  formatBytes,
  formatSeconds,
  plural,
  shortPath
} from '../ui/format';
import { ISourceLine, ITraceCompile, ITracePayload } from '../model';
import { omissionNotes } from './omissions';
import { phaseBar } from './phasebar';

/** Columns (compile ids) drawn in the grid (the frame list below has all), and ranks
 * drawn per page of rows (a "Show more" row draws the next). */
const MAX_COLUMNS = 120;
const ROWS_PAGE = 32;
/** Longest single text shown. */
const MAX_TEXT = 2000;
/** Depth and children per node of the frame tree. */
const MAX_DEPTH = 40;
const PAGE = 50;

const STATUS_MARK = new Map<string, string>([
  ['compiled', '✓'],
  ['cache_hit', '⚡'],
  ['restarted', '↻'],
  ['failed', '✗']
]);

function rankText(rank: number | null): string {
  return rank === null ? 'no rank' : `rank ${rank}`;
}

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

export interface ITraceViewOptions {
  /** Where code (graphs, guards, kernels) is shown. */
  code: ICodeSink;
  /** Called after the compile view changed (e.g. to let a code view measure itself). */
  onChange?: () => void;
}

export function renderTrace(
  p: ITracePayload,
  options: ITraceViewOptions
): HTMLElement {
  const wrap = h('div', { class: 'nbc-trace' });
  const ranks = p.ranks.length
    ? p.ranks.map(String).join(', ')
    : 'unknown (one process)';
  wrap.appendChild(
    h(
      'div',
      { class: 'nbc-meta' },
      h('code', null, clip(p.path, 500)),
      ` · ${plural(p.compiles.length, 'compile')} · ranks ${clip(ranks, 300)} · ` +
        `${formatBytes(p.bytes_read)} in ${plural(p.files.length, 'file')}`
    )
  );
  if (p.interrupted) {
    // the kernel's first problem says how far it read and which files it did not
    wrap.appendChild(
      h(
        'div',
        { class: 'nbc-note nbc-warning' },
        h('b', null, 'interrupted, partial'),
        p.problems.length ? `: ${clip(p.problems[0], MAX_TEXT)}` : ''
      )
    );
  }
  wrap.append(
    ...omissionNotes(p.omitted, o =>
      o.field === 'compiles' ? 'more compiles' : 'compiles\u2019 contents'
    )
  );
  if (p.truncated && !p.omitted.length) {
    wrap.appendChild(
      h(
        'div',
        { class: 'nbc-note' },
        'Long texts were capped in this output: nbcompile.open_trace(path) has them whole.'
      )
    );
  }
  if (p.divergences.length) {
    const list = h('ul', { class: 'nbc-divergences' });
    appendPaged(
      list,
      p.divergences,
      d =>
        h(
          'li',
          { class: 'nbc-divergence' },
          h('b', null, clip(d.kind, 40)),
          ` — ranks ${clip(d.groups.map(g => g.join(',')).join(' | '), 300)}: ${clip(d.detail, MAX_TEXT)}`,
          d.compile_id ? ` (first at ${clip(d.compile_id, 40)})` : ''
        ),
      PAGE,
      'divergences'
    );
    wrap.append(
      h(
        'div',
        { class: 'nbc-note nbc-warning' },
        'The ranks compiled differently:'
      ),
      list
    );
  } else if (p.ranks.length > 1) {
    wrap.appendChild(
      h('div', { class: 'nbc-note' }, 'All ranks compiled the same.')
    );
  }
  const view = h('div', { class: 'nbc-trace-compile' });
  const cells = new Map<ITraceCompile, HTMLElement>();
  let selected: ITraceCompile | null = null;
  const select = (c: ITraceCompile) => {
    if (selected) {
      cells.get(selected)?.classList.remove('nbc-selected');
    }
    selected = c;
    cells.get(c)?.classList.add('nbc-selected');
    view.replaceChildren(...renderCompile(c, options.code));
    options.onChange?.();
  };
  if (p.compiles.length) {
    wrap.appendChild(renderGrid(p, cells, select));
    wrap.appendChild(framesSection(p, select));
    wrap.appendChild(view);
    const marked = new Set(p.divergences.map(d => d.compile_id));
    select(
      p.compiles.find(c => c.status === 'failed') ??
        p.compiles.find(c => marked.has(c.compile_id)) ??
        p.compiles[0]
    );
  } else {
    wrap.appendChild(
      h('p', { class: 'nbc-muted' }, 'No compiles in this trace.')
    );
  }
  if (p.problems.length) {
    const list = h('ul', { class: 'nbc-problems' });
    appendPaged(
      list,
      p.problems,
      x => h('li', null, clip(x, MAX_TEXT)),
      20,
      'problems'
    );
    wrap.append(
      h(
        'div',
        { class: 'nbc-note nbc-warning' },
        `${plural(p.problems.length, 'problem')} reading the logs:`
      ),
      list
    );
  }
  if (p.unknown_events.size) {
    const counts = [...p.unknown_events]
      .slice(0, 50)
      .map(([k, n]) => `${k} ×${n}`)
      .join(', ');
    wrap.appendChild(
      h(
        'div',
        { class: 'nbc-meta' },
        `events nbcompile does not know (skipped): ${clip(counts, MAX_TEXT)}`
      )
    );
  }
  return wrap;
}

function renderGrid(
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

interface IFrameNode {
  label: string;
  children: Map<string, IFrameNode>;
  compiles: ITraceCompile[];
}

function frameLabel(s: ISourceLine): string {
  return `${shortPath(s.filename, s.lineno)} ${s.line.trim()}`;
}

/** The frames that compiled, as a tree of the user stacks that led to them. */
function renderFrames(
  p: ITracePayload,
  select: (c: ITraceCompile) => void
): HTMLElement {
  const root: IFrameNode = { label: '', children: new Map(), compiles: [] };
  for (const c of p.compiles) {
    let node = root;
    const stack = c.stack.length
      ? c.stack
      : [{ filename: c.filename, lineno: c.lineno, line: c.function }];
    for (const s of stack.slice(0, MAX_DEPTH)) {
      const label = frameLabel(s);
      let next = node.children.get(label);
      if (!next) {
        next = { label, children: new Map(), compiles: [] };
        node.children.set(label, next);
      }
      node = next;
    }
    node.compiles.push(c);
  }
  const renderNode = (n: IFrameNode): HTMLElement => {
    const li = h('li', null, h('code', null, clip(n.label, 300)));
    if (n.compiles.length) {
      const ids = h('span', { class: 'nbc-frame-compiles' });
      appendPaged(
        ids,
        n.compiles,
        c =>
          button(
            `${c.compile_id}${c.rank !== null ? `@${c.rank}` : ''}`,
            () => select(c),
            `nbc-button nbc-small nbc-trace-${classSuffix(c.status)}`,
            `${c.status} on ${rankText(c.rank)}`
          ),
        PAGE,
        'compiles'
      );
      li.appendChild(ids);
    }
    if (n.children.size) {
      const ul = h('ul', null);
      appendPaged(ul, [...n.children.values()], renderNode, PAGE, 'frames');
      li.appendChild(ul);
    }
    return li;
  };
  const tree = h('ul', { class: 'nbc-frame-tree' });
  appendPaged(tree, [...root.children.values()], renderNode, PAGE, 'frames');
  return tree;
}

/** The frame tree in a collapsed `<details>`, built when first opened. */
function framesSection(
  p: ITracePayload,
  select: (c: ITraceCompile) => void
): HTMLElement {
  const details = h(
    'details',
    { class: 'nbc-trace-frames' },
    h('summary', null, 'Frames that compiled (by the stack that led there)')
  );
  let built = false;
  details.addEventListener('toggle', () => {
    if (details.open && !built) {
      built = true;
      details.appendChild(renderFrames(p, select));
    }
  });
  return details;
}

interface ICodeItem {
  label: string;
  text: string;
  mime: string;
}

function renderCompile(c: ITraceCompile, code: ICodeSink): Node[] {
  const out: Node[] = [];
  out.push(
    h(
      'div',
      { class: 'nbc-trace-compile-head' },
      h('b', null, `${clip(c.compile_id, 40)} · ${rankText(c.rank)}`),
      ' ',
      h('code', null, clip(c.function || c.frame, 200)),
      ` ${clip(shortPath(c.filename, c.lineno), 300)} · `,
      h(
        'span',
        { class: `nbc-status nbc-trace-${classSuffix(c.status)}` },
        clip(c.status.replace('_', ' '), 30)
      ),
      c.compile_time_s > 0 ? ` · ${formatSeconds(c.compile_time_s)}` : ''
    )
  );
  const facts = h('ul', { class: 'nbc-trace-facts' });
  if (c.fail_reason) {
    facts.appendChild(
      h(
        'li',
        { class: 'nbc-error' },
        `${clip(c.status, 30)}: ${clip(c.fail_reason, MAX_TEXT)}`
      )
    );
  }
  if (c.recompile_reason) {
    facts.appendChild(
      h(
        'li',
        null,
        h('b', null, 'recompiled: '),
        clip(c.recompile_reason, MAX_TEXT)
      )
    );
  }
  const cache = [...c.cache].filter(([, n]) => n > 0);
  if (cache.length) {
    facts.appendChild(
      h(
        'li',
        null,
        `cache: ${clip(
          cache
            .slice(0, 20)
            .map(([k, n]) => `${k} ×${n}`)
            .join(', '),
          500
        )}`
      )
    );
  }
  if (c.log) {
    facts.appendChild(
      h('li', { class: 'nbc-meta' }, `log: ${clip(c.log, 500)}`)
    );
  }
  out.push(facts);
  const bar = c.metric_phases.size ? c.metric_phases : c.phases;
  if (bar.size) {
    out.push(
      h('div', { class: 'nbc-meta' }, 'compile time by phase'),
      phaseBar(bar, 0, true)
    );
  }
  const regions = [...c.phases].filter(
    ([name, s]) => !c.metric_phases.has(name) && s > 0
  );
  if (c.metric_phases.size && regions.length) {
    out.push(
      h(
        'div',
        { class: 'nbc-meta' },
        `timed regions (nested in the phases): ${clip(
          regions
            .slice(0, 30)
            .map(([name, s]) => `${name} ${formatSeconds(s)}`)
            .join(', '),
          MAX_TEXT
        )}`
      )
    );
  }
  if (c.graph_breaks.length) {
    const list = h('ol', { class: 'nbc-breaks' });
    appendPaged(
      list,
      c.graph_breaks,
      gb =>
        h(
          'li',
          { class: 'nbc-break' },
          h(
            'div',
            { class: 'nbc-library-line' },
            h(
              'span',
              { class: 'nbc-lineno' },
              clip(shortPath(gb.filename ?? '', gb.lineno), 300)
            ),
            h(
              'code',
              { class: 'nbc-line' },
              clip(gb.line.trim(), 300) || '(source not available here)'
            )
          ),
          h(
            'div',
            { class: 'nbc-reason' },
            clip(gb.reason || gb.gb_type || 'graph break', MAX_TEXT)
          ),
          gb.hint
            ? h(
                'div',
                { class: 'nbc-hint' },
                h('b', null, 'Hint: '),
                clip(gb.hint, MAX_TEXT)
              )
            : null,
          gb.gb_id || gb.doc_url
            ? h(
                'div',
                { class: 'nbc-meta' },
                externalLink(gb.doc_url, clip(gb.gb_id || 'docs', 20))
              )
            : null
        ),
      PAGE,
      'breaks'
    );
    out.push(
      h(
        'div',
        { class: 'nbc-meta' },
        plural(c.graph_breaks.length, 'graph break')
      ),
      list
    );
  }
  const items: ICodeItem[] = [];
  c.graphs.forEach((g, i) =>
    items.push({
      label: `FX graph${c.graphs.length > 1 ? ` ${i + 1}` : ''}`,
      text: g,
      mime: 'text/x-python'
    })
  );
  if (c.guards) {
    items.push({
      label: 'guards',
      text: c.guards.replace(/^\n+/, ''),
      mime: 'text/plain'
    });
  }
  for (const k of c.kernels.slice(0, 500)) {
    items.push({
      label: `${k.name} (${k.language}, ${k.kind})`,
      text: k.source,
      mime: editorMimeType(k.language)
    });
  }
  if (c.output_code) {
    items.push({
      label: 'output code',
      text: c.output_code,
      mime: 'text/x-python'
    });
  }
  if (c.contents_omitted) {
    out.push(
      h(
        'p',
        { class: 'nbc-note nbc-omitted' },
        'Its breaks, guards, graphs and code were left out of this output (byte budget): ',
        h(
          'code',
          null,
          `nbcompile.open_trace(path).compile(${JSON.stringify(c.compile_id)}, rank=${c.rank ?? 'None'})`
        ),
        ' has them.'
      )
    );
  } else if (items.length) {
    const pick = h('select', {
      class: 'nbc-select',
      attrs: { 'aria-label': 'code of this compile' }
    });
    items.forEach((item, i) => {
      const opt = h('option', null, clip(item.label, 200));
      opt.value = String(i);
      pick.appendChild(opt);
    });
    const show = (i: number) =>
      code.setText(
        items[i].text,
        items[i].mime,
        `${clip(c.compile_id, 40)} · ${clip(items[i].label, 200)}`
      );
    pick.addEventListener('change', () => show(Number(pick.value)));
    show(0);
    out.push(pick, code.node);
  } else {
    out.push(
      h(
        'p',
        { class: 'nbc-muted' },
        'No graphs, guards or code were logged for this compile.'
      )
    );
  }
  return out;
}
