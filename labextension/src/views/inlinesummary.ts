/**
 * The inline summary of a `summary` record under a `%%compile` cell: one row per target
 * (name, kind, status, counts, an Inspect button), its first few notes, graph breaks,
 * recompiles and error, and compile time by phase (folded). Bounded: the first
 * `MAX_ROWS` targets and `MAX_DETAILS` lines each (the Compile inspector lists them all).
 * Text via textContent only. ../mime draws it.
 */

import { button, Child, externalLink, h } from '../ui/dom';
import {
  classSuffix,
  clip,
  countsText,
  formatSeconds,
  plural,
  statusText,
  whereText
} from '../ui/format';
import {
  ICudagraphHazard,
  ISummaryPayload,
  ITargetRecord
} from '../model/target';
import { phaseBar } from './phasebar';

/** Targets listed inline per output (the inspector lists them all). */
const MAX_ROWS = 50;
/** Detail lines (notes, breaks, recompiles) listed inline per target. */
const MAX_DETAILS = 10;
/** Longest text shown inline. */
const MAX_TEXT = 500;
/** CUDA-graph hazards said inline (the latest), as the summary's text says them. */
const MAX_HAZARDS = 2;
/** A hazard's text (its names, why, the fix) kept whole up to this. */
const MAX_HAZARD_TEXT = 2000;

/**
 * The rows of `p`; `inspect` (when given) opens the Compile inspector on a target.
 */
export function renderInlineSummary(
  p: ISummaryPayload,
  inspect: ((targetId: string) => void) | null
): DocumentFragment {
  const node = document.createDocumentFragment();
  const head = h(
    'div',
    { class: 'nbc-inline-head' },
    h('b', null, 'nbcompile'),
    ' · ',
    p.targets.length
      ? plural(p.targets.length, 'target')
      : 'nothing to compile in this cell'
  );
  node.appendChild(head);
  const now = Date.now() / 1000;
  for (const t of p.targets.slice(0, MAX_ROWS)) {
    const name = clip(t.name, 200);
    const row = h(
      'div',
      { class: 'nbc-inline-row', data: { targetId: t.id } },
      h('code', { class: 'nbc-target-name' }, name),
      h('span', { class: 'nbc-badge' }, clip(t.kind, 30)),
      h(
        'span',
        { class: `nbc-status nbc-status-${classSuffix(t.status)}` },
        clip(statusText(t, now), 50)
      ),
      h('span', { class: 'nbc-inline-counts' }, countsText(t))
    );
    if (inspect) {
      row.appendChild(
        button(
          'Inspect',
          () => inspect(t.id),
          'nbc-button nbc-small nbc-inspect',
          `Open the Compile inspector on ${name}`
        )
      );
    }
    node.appendChild(row);
    const lines: Child[][] = [];
    if (t.progress_text) {
      lines.push([`compiling: ${clip(t.progress_text, MAX_TEXT)}`]);
    }
    for (const note of t.notes.slice(0, MAX_DETAILS)) {
      lines.push([clip(note, MAX_TEXT)]);
    }
    for (const hz of t.cudagraph_hazards.slice(-MAX_HAZARDS)) {
      lines.push([hazardNode(hz)]);
    }
    for (const gb of t.graph_breaks.slice(0, MAX_DETAILS)) {
      lines.push([
        `graph break at ${clip(whereText(gb.filename, gb.lineno, t.cell, gb.stack, t.cell_names), 300)}: `,
        h('code', null, clip(gb.line.trim(), 200)),
        ` — ${clip(gb.gb_type || gb.reason, MAX_TEXT)}`,
        gb.gb_id || gb.doc_url ? ' ' : null,
        gb.gb_id || gb.doc_url
          ? externalLink(gb.doc_url, clip(gb.gb_id || 'docs', 20))
          : null,
        gb.runs_as ? h('br') : null,
        gb.runs_as
          ? h('span', { class: 'nbc-meta' }, clip(gb.runs_as, MAX_TEXT))
          : null
      ]);
    }
    for (const rc of t.recompiles.slice(0, MAX_DETAILS)) {
      lines.push([
        `recompile ${clip(rc.compile_id, 50)}: ${clip(rc.reason, MAX_TEXT)}`
      ]);
    }
    const details = h('ul', { class: 'nbc-inline-details' });
    for (const line of lines.slice(0, MAX_DETAILS)) {
      details.appendChild(h('li', null, ...line));
    }
    const hidden =
      t.notes.length +
      t.graph_breaks.length +
      t.recompiles.length -
      details.childElementCount;
    if (hidden > 0) {
      details.appendChild(
        h(
          'li',
          { class: 'nbc-meta' },
          `${hidden} more (see the Compile inspector)`
        )
      );
    }
    if (t.error) {
      const err = t.error;
      details.appendChild(
        h(
          'li',
          { class: 'nbc-error' },
          `${clip(err.type, 100) || 'error'} at ` +
            `${clip(whereText(err.filename, err.lineno, t.cell, err.stack, t.cell_names), 300)}: `,
          h('code', null, clip(err.line.trim(), 200)),
          ` — ${clip(err.message, MAX_TEXT)}`
        )
      );
    }
    if (details.childElementCount) {
      node.appendChild(details);
    }
    const phases = phasesOf(t);
    if (phases) {
      node.appendChild(phases);
    }
  }
  if (p.targets.length > MAX_ROWS) {
    node.appendChild(
      h(
        'div',
        { class: 'nbc-meta' },
        `${p.targets.length - MAX_ROWS} more targets: the Compile inspector lists them all`
      )
    );
  }
  return node;
}

/** Compile time by phase, a stacked bar per compile (folded; the first few). */
/** A CUDA-graph hazard as the kernel worded it: the cell after which it was found, then
 * its lines (what happened, why, the fix), styled as the summary's warnings. */
export function hazardNode(hz: ICudagraphHazard): HTMLElement {
  const where = hz.cell !== null ? `after cell [${hz.cell}]: ` : '';
  return h(
    'div',
    { class: 'nbc-note nbc-warning nbc-hazard' },
    h('b', null, 'warning'),
    ` ${where}${clip(hz.text, MAX_HAZARD_TEXT)}`
  );
}

function phasesOf(t: ITargetRecord): HTMLElement | null {
  const compiles = t.compiles.filter(c => c.phases.size);
  if (!compiles.length) {
    return null;
  }
  let scale = 0;
  for (const c of compiles) {
    let sum = 0;
    c.phases.forEach(s => (sum += s > 0 ? s : 0));
    scale = Math.max(scale, sum);
  }
  const table = h('table', { class: 'nbc-inline-phases-table' });
  for (const c of compiles.slice(0, MAX_DETAILS)) {
    table.appendChild(
      h(
        'tr',
        null,
        h('td', null, h('code', null, clip(c.compile_id, 30))),
        h('td', { class: 'nbc-phase-cell' }, phaseBar(c.phases, scale)),
        h(
          'td',
          { class: 'nbc-meta' },
          c.guard_latency_s !== null
            ? `guards ${formatSeconds(c.guard_latency_s)}/call`
            : ''
        )
      )
    );
  }
  const totals = new Map<string, number>();
  for (const c of compiles) {
    c.phases.forEach((s, name) =>
      totals.set(name, (totals.get(name) ?? 0) + (s > 0 ? s : 0))
    );
  }
  const legend = phaseBar(totals, 0, true).querySelector('.nbc-phase-legend');
  return h(
    'details',
    { class: 'nbc-inline-phases' },
    h(
      'summary',
      null,
      `compile time by phase (${plural(compiles.length, 'compile')})`
    ),
    table,
    compiles.length > MAX_DETAILS
      ? h(
          'div',
          { class: 'nbc-meta' },
          `${compiles.length - MAX_DETAILS} more in the Compile inspector`
        )
      : null,
    legend
  );
}
