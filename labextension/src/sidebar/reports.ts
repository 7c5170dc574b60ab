/**
 * The notebook-level sections below the selected target: one per timing record
 * (`%compare`), trace (`open_trace`), profile (`%kprun`), suggestions (`%suggest`),
 * diagnosis (`%diagnose`) and compile time (`%compile_time`),
 * each collapsible and rendered only when opened; and the notebook's graph breaks,
 * once each, ranked by what they cost.
 */

import { appendPaged, externalLink, h } from '../ui/dom';
import { libraryLine } from '../ui/sourceline';
import { clip, formatTime, isCellFile, plural } from '../ui/format';
import { IReportPayload } from '../model/payload';
import { IProfilePayload } from '../model/profile';
import { ITargetRecord } from '../model/target';
import { ITimingPayload } from '../model/timing';
import { seconds } from '../views/compiletimetext';
import { renderCompileTime } from '../views/compiletimeview';
import { layerText } from '../views/diagnosetext';
import { renderDiagnosis } from '../views/diagnoseview';
import { renderProfile } from '../views/profileview';
import { rankBreaks } from '../records/rankbreaks';
import { renderSuggestions } from '../views/suggestview';
import { renderTiming } from '../views/timingview';
import { renderTrace } from '../views/traceview';
import { ISectionHost, MAX_TEXT, sourceLink } from './section';

/** A collapsible section whose body is built on first open; open state kept by `key`. */
export function lazySection(
  key: string,
  kind: string,
  title: string,
  count: number,
  open: Map<string, boolean>,
  fill: () => Node,
  onOpen?: () => void
): HTMLDetailsElement {
  const details = h(
    'details',
    { class: 'nbc-section', data: { section: kind } },
    h(
      'summary',
      null,
      h('span', { class: 'nbc-section-title' }, clip(title, 300)),
      h('span', { class: 'nbc-count' }, String(count))
    )
  );
  let filled = false;
  const show = () => {
    if (!filled) {
      filled = true;
      details.appendChild(fill());
    }
    onOpen?.();
  };
  details.open = open.get(key) ?? false;
  if (details.open) {
    show();
  }
  details.addEventListener('toggle', () => {
    open.set(key, details.open);
    if (details.open) {
      show();
    }
  });
  return details;
}

export function timingSection(
  p: ITimingPayload,
  open: Map<string, boolean>
): HTMLElement {
  let count = 0;
  for (const t of p.tables) {
    count += t.rows.length;
  }
  const key = `timing:${p.key}`;
  if (!open.has(key)) {
    open.set(key, count > 0);
  }
  return lazySection(key, 'timing', `Timing: ${p.title}`, count, open, () =>
    renderTiming(p)
  );
}

export function reportSection(
  p: IReportPayload,
  host: ISectionHost,
  open: Map<string, boolean>
): HTMLElement {
  const key = `${p.record}:${p.key}`;
  if (p.record === 'trace') {
    const view = host.codeView(key);
    if (!open.has(key)) {
      open.set(key, true);
    }
    return lazySection(
      key,
      'trace',
      `Trace: ${p.path.split('/').slice(-2).join('/')}` +
        (p.divergences.length ? ' — ranks differ' : ''),
      p.compiles.length,
      open,
      () => renderTrace(p, { code: view, onChange: () => view.refresh() }),
      () => view.refresh()
    );
  }
  if (!open.has(key)) {
    open.set(key, true);
  }
  if (p.record === 'profile') {
    return lazySection(
      key,
      'profile',
      `Profile: ${p.name} (${formatTime(p.wall_s)}/call)`,
      p.kernels.length,
      open,
      () => renderProfile(p)
    );
  }
  if (p.record === 'compile_time') {
    // One row per remedy tried or judged, as in the inline output.
    return lazySection(
      key,
      'compile-time',
      `Compile time: ${p.name} (cold ${seconds(p.cold_s)}` +
        `${p.interrupted ? ', interrupted' : ''})`,
      p.remedies.length,
      open,
      () => renderCompileTime(p)
    );
  }
  if (p.record === 'diagnosis') {
    const verdict =
      p.kind === 'ok' ? 'ok' : `${p.kind} in ${layerText(p.layer)}`;
    return lazySection(
      key,
      'diagnosis',
      `Diagnosis: ${p.name} (${verdict})`,
      p.workarounds.length,
      open,
      () => renderDiagnosis(p)
    );
  }
  const proven = p.items.filter(s => s.verified).length;
  return lazySection(
    key,
    'suggestions',
    `Suggestions: ${p.name} (${proven} proven)`,
    p.items.length,
    open,
    () => renderSuggestions(p)
  );
}

/** The notebook's graph breaks once each, costliest first; `null` when there are none. */
export function rankedBreaksSection(
  host: ISectionHost,
  targets: readonly ITargetRecord[],
  profiles: readonly IProfilePayload[],
  open: Map<string, boolean>
): HTMLElement | null {
  const ranked = rankBreaks(targets, profiles);
  if (!ranked.length) {
    return null;
  }
  const measured = ranked.some(r => r.outside_graphs_s !== null);
  return lazySection(
    'ranked-breaks',
    'ranked-breaks',
    `Graph breaks in this notebook, ${measured ? 'by measured cost' : 'most hit first'}`,
    ranked.length,
    open,
    () => {
      const list = h('ol', { class: 'nbc-breaks nbc-ranked-breaks' });
      appendPaged(
        list,
        ranked,
        r => {
          const gb = r.graph_break;
          const cost =
            r.outside_graphs_s !== null
              ? `${formatTime(r.outside_graphs_s)}/call between graphs · `
              : '';
          return h(
            'li',
            { class: 'nbc-break' },
            isCellFile(gb.filename, r.cell)
              ? sourceLink(host, r.cell, gb.lineno, gb.line)
              : libraryLine(gb.filename, gb.lineno, gb.line),
            h(
              'div',
              { class: 'nbc-reason' },
              clip(gb.gb_type || gb.reason || 'graph break', MAX_TEXT)
            ),
            h(
              'div',
              { class: 'nbc-meta' },
              `${cost}${plural(r.hits, 'compile')} hit it · ${clip(r.targets.join(', '), 300)} `,
              gb.gb_id || gb.doc_url
                ? externalLink(gb.doc_url, clip(gb.gb_id || 'docs', 20))
                : null
            )
          );
        },
        100,
        'breaks'
      );
      return list;
    }
  );
}
