/**
 * A profile (`nbcompile.profile` / `%kprun`) as DOM: where one call's time went (kernels,
 * overhead, Python between graphs), the target's source painted by measured compiled
 * time per line with eager time beside it (like `%%cython -a`), and the kernel table.
 * Shared by the sidebar and the inline renderer; text only; bounded work.
 */

import { appendPaged, externalLink, h } from '../ui/dom';
import { clip, formatBytes, formatTime, placeText, plural } from '../ui/format';
import {
  IMemoryPoint,
  IProfileMemory,
  IProfilePayload
} from '../model/profile';
import { memoryFacts } from './memorytext';
import { omissionNotes } from './omissions';
import { phaseBar } from './phasebar';

const PAGE = 100;
const MAX_TEXT = 1000;

export function renderProfile(p: IProfilePayload): HTMLElement {
  const wrap = h('div', { class: 'nbc-profile' });
  wrap.appendChild(
    h(
      'div',
      { class: 'nbc-meta' },
      `${plural(p.repeat, 'profiled call')} · wall ${formatTime(p.wall_s)} per call compiled, ` +
        `${formatTime(p.eager_wall_s)} eager` +
        (p.recompiles_during_profile
          ? ` · ${plural(p.recompiles_during_profile, 'recompile')} while profiling`
          : '')
    )
  );
  const budget = new Map<string, number>([
    ['kernels', p.kernel_s],
    ['overhead (guards, launches)', p.overhead_s],
    ['Python between graphs', p.outside_graphs_s],
    ['unaccounted', p.unaccounted_s]
  ]);
  wrap.appendChild(
    h('div', { class: 'nbc-meta' }, 'one call, by where the time went')
  );
  wrap.appendChild(phaseBar(budget, 0, true));
  if (!p.accounted) {
    wrap.appendChild(
      h(
        'div',
        { class: 'nbc-note nbc-warning' },
        'The parts do not add up to the wall time: see the notes.'
      )
    );
  }
  if (p.memory) {
    renderMemory(wrap, p.memory);
  }
  wrap.append(...omissionNotes(p.omitted, o => `more ${clip(o.field, 40)}`));
  wrap.appendChild(renderLines(p));
  wrap.appendChild(renderKernels(p));
  if (p.graph_breaks.length) {
    const list = h('ul', { class: 'nbc-profile-breaks' });
    appendPaged(
      list,
      p.graph_breaks,
      gb =>
        h(
          'li',
          null,
          `${clip(placeText(gb.filename ?? '', gb.lineno, p.cell_names), 300)}: `,
          h('code', null, clip(gb.line.trim(), 300)),
          ` — ${clip(gb.gb_type || gb.reason, MAX_TEXT)} `,
          gb.gb_id || gb.doc_url
            ? externalLink(gb.doc_url, clip(gb.gb_id || 'docs', 20))
            : null
        ),
      20,
      'breaks'
    );
    wrap.append(
      h(
        'div',
        { class: 'nbc-meta' },
        `graph breaks in the profiled call (Python between graphs: ${formatTime(p.outside_graphs_s)} per call)`
      ),
      list
    );
  }
  const notes = p.memory
    ? [
        ...p.notes,
        ...[p.memory.note, ...p.memory.notes]
          .filter(Boolean)
          .map(n => `memory: ${n}`)
      ]
    : p.notes;
  appendPaged(
    wrap,
    notes,
    n => h('div', { class: 'nbc-note' }, clip(n, MAX_TEXT)),
    20,
    'notes'
  );
  return wrap;
}

function renderMemory(wrap: HTMLElement, m: IProfileMemory): void {
  wrap.appendChild(
    h(
      'div',
      { class: 'nbc-meta' },
      `memory of one call: ${memoryFacts(m).join('; ')}`
    )
  );
  let top = 0;
  let end = 0;
  for (const pt of [...m.timeline, ...m.eager_timeline]) {
    top = Math.max(top, pt.bytes);
    end = Math.max(end, pt.t_s);
  }
  for (const [label, points] of [
    ['compiled', m.timeline],
    ['eager', m.eager_timeline]
  ] as [string, IMemoryPoint[]][]) {
    if (points.length > 1 && top > 0) {
      wrap.appendChild(
        h(
          'div',
          { class: 'nbc-meta' },
          `bytes in use across one ${label} call (same scale)`
        )
      );
      wrap.appendChild(timeline(points, top, end, label));
    }
  }
}

/** Columns drawn per timeline: longer ones keep each stretch's highest point. */
const MAX_POINTS = 600;

/** At most `MAX_POINTS` points: each stretch of the timeline by its highest point. */
function thin(points: IMemoryPoint[]): IMemoryPoint[] {
  if (points.length <= MAX_POINTS) {
    return points;
  }
  const out: IMemoryPoint[] = [];
  const step = points.length / MAX_POINTS;
  for (let i = 0; i < MAX_POINTS; i++) {
    let best = points[Math.floor(i * step)];
    for (
      let j = Math.floor(i * step) + 1;
      j < Math.floor((i + 1) * step);
      j++
    ) {
      if (points[j].bytes > best.bytes) {
        best = { ...points[j], t_s: best.t_s };
      }
    }
    out.push(best);
  }
  return out;
}

/** Bytes in use over time as steps: one column per point, as wide as it lasted. */
function timeline(
  all: IMemoryPoint[],
  top: number,
  end: number,
  label: string
): HTMLElement {
  const points = thin(all);
  const strip = h('div', {
    class: `nbc-memory-timeline${label === 'eager' ? ' nbc-eager' : ''}`,
    attrs: { role: 'img', 'aria-label': `bytes in use, ${label}` }
  });
  const last = points[points.length - 1].t_s;
  const span = Math.max(end, last) || 1;
  for (let i = 0; i < points.length; i++) {
    const pt = points[i];
    const next =
      i + 1 < points.length ? points[i + 1].t_s : Math.max(span, pt.t_s);
    const col = h('div', {
      title: `${formatBytes(pt.bytes)} at ${formatTime(pt.t_s)}${pt.what ? ` (${clip(pt.what, 200)})` : ''}`
    });
    col.style.height = `${Math.max(0, Math.min(1, pt.bytes / top)) * 100}%`;
    col.style.flexGrow = String(Math.max(0, next - pt.t_s) / span + 0.002);
    strip.appendChild(col);
  }
  return strip;
}

/** The source, each line shaded by its share of the hottest line's compiled time. */
function renderLines(p: IProfilePayload): HTMLElement {
  let top = 0;
  let topBytes = 0;
  for (const ln of p.lines) {
    top = Math.max(top, ln.compiled_s);
    topBytes = Math.max(
      topBytes,
      ln.compiled_allocated_bytes,
      ln.eager_allocated_bytes
    );
  }
  const memory = p.memory !== null;
  const bytesCell = (n: number): HTMLElement => {
    const td = h('td', { class: 'nbc-num' }, n ? formatBytes(n) : '');
    if (topBytes > 0 && n > 0) {
      td.style.background = `rgba(21, 101, 192, ${(0.1 + 0.55 * Math.min(n / topBytes, 1)).toFixed(2)})`;
    }
    return td;
  };
  const tbody = h('tbody');
  appendPaged(
    tbody,
    p.lines,
    ln => {
      const src = h(
        'td',
        { class: 'nbc-profile-src' },
        h('code', null, clip(ln.line, 500))
      );
      if (top > 0 && ln.compiled_s > 0) {
        const alpha = 0.12 + 0.68 * Math.min(ln.compiled_s / top, 1);
        src.style.background = `rgba(230, 81, 0, ${alpha.toFixed(2)})`;
      }
      return h(
        'tr',
        {
          title: ln.kernels.length
            ? `kernels: ${clip(ln.kernels.join(', '), 500)}`
            : undefined
        },
        h(
          'td',
          { class: 'nbc-num' },
          ln.lineno === null ? '' : String(ln.lineno)
        ),
        h(
          'td',
          { class: 'nbc-num' },
          ln.compiled_s ? formatTime(ln.compiled_s) : ''
        ),
        h('td', { class: 'nbc-num' }, ln.eager_s ? formatTime(ln.eager_s) : ''),
        h(
          'td',
          { class: 'nbc-num' },
          ln.speedup !== null ? `${ln.speedup.toFixed(2)}×` : ''
        ),
        ...(memory
          ? [
              bytesCell(ln.compiled_allocated_bytes),
              bytesCell(ln.eager_allocated_bytes)
            ]
          : []),
        src
      );
    },
    PAGE,
    'lines'
  );
  return h(
    'div',
    { class: 'nbc-table-wrap' },
    h(
      'table',
      { class: 'nbc-table nbc-profile-lines' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ...[
            'line',
            'compiled/call',
            'eager/call',
            'speedup',
            ...(memory ? ['allocated compiled', 'allocated eager'] : []),
            'source'
          ].map(x => h('th', null, x))
        )
      ),
      tbody
    )
  );
}

function renderKernels(p: IProfilePayload): HTMLElement {
  if (!p.kernels.length) {
    return h('p', { class: 'nbc-muted' }, 'No kernel launches were measured.');
  }
  const tbody = h('tbody');
  appendPaged(
    tbody,
    p.kernels,
    k =>
      h(
        'tr',
        null,
        h('td', null, h('code', null, clip(k.name, 200))),
        h('td', null, clip(k.kind, 30)),
        h('td', { class: 'nbc-num' }, String(k.calls)),
        h('td', { class: 'nbc-num' }, formatTime(k.total_s)),
        h('td', { class: 'nbc-num' }, formatTime(k.mean_s)),
        h('td', { class: 'nbc-num' }, `${(k.share * 100).toFixed(0)}%`),
        ...(p.memory
          ? [
              h(
                'td',
                { class: 'nbc-num' },
                k.allocated_bytes ? formatBytes(k.allocated_bytes) : ''
              )
            ]
          : []),
        h(
          'td',
          null,
          k.lines.length ? clip(k.lines.join(', '), 200) : 'not tied to a line'
        )
      ),
    PAGE,
    'kernels'
  );
  return h(
    'div',
    { class: 'nbc-table-wrap' },
    h(
      'table',
      { class: 'nbc-table nbc-profile-kernels' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ...[
            'kernel',
            'kind',
            'launches',
            'total',
            'per launch',
            'share',
            ...(p.memory ? ['allocated/call'] : []),
            'lines'
          ].map(x => h('th', null, x))
        )
      ),
      tbody
    )
  );
}
