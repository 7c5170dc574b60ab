/**
 * A trace (`nbcompile.open_trace`: a TORCH_TRACE log or a job's directory of rank logs)
 * as DOM: where the ranks compiled differently, a ranks x compile-ids grid (status
 * colours, divergent compile ids marked; a click opens that compile), the stack of
 * frames that compiled (like tlparse's stack trie), and the compile view (graph breaks
 * with file:line, recompile reason, phases, cache, FX graphs, guards and kernels in a
 * code view). Shared by the sidebar and the inline renderer; text only; bounded work.
 *
 * The page and its notes are here; the grid is ./tracegrid, the frame tree
 * ./traceframes, the compile view ./tracecompile.
 */

import { ICodeSink } from '../ui/codesink';
import { appendPaged, h } from '../ui/dom';
import { clip, formatBytes, plural } from '../ui/format';
import { ITraceCompile, ITracePayload } from '../model/trace';
import { omissionNotes } from './omissions';
import { renderCompile } from './tracecompile';
import { framesSection } from './traceframes';
import { renderGrid } from './tracegrid';

/** Longest single text shown, and divergences drawn per page. */
const MAX_TEXT = 2000;
const PAGE = 50;

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
  wrap.append(...divergenceNotes(p));
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

/** Where the ranks compiled differently (each divergence, paged), or that they did
 * not; nothing for one rank. */
function divergenceNotes(p: ITracePayload): HTMLElement[] {
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
    return [
      h(
        'div',
        { class: 'nbc-note nbc-warning' },
        'The ranks compiled differently:'
      ),
      list
    ];
  }
  return p.ranks.length > 1
    ? [h('div', { class: 'nbc-note' }, 'All ranks compiled the same.')]
    : [];
}
