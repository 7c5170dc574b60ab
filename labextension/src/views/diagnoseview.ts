/**
 * A diagnosis (`nbcompile.diagnose` / `%diagnose`) as DOM: the verdict in the kernel's
 * words, the ladder of backends (what each rung did against eager), the culprit and its
 * line, the float64 reference (who is closer), and the workarounds tried on copies with
 * their measured effect and cost. Shared by the sidebar and the inline renderer; text
 * only; bounded work. The words come from ./diagnosetext (pure, tested in node).
 */

import { appendPaged, h } from '../ui/dom';
import { libraryLine } from '../ui/sourceline';
import { clip, formatTime } from '../ui/format';
import { IDiagnosisPayload, IWorkaround } from '../model/diagnosis';
import {
  referenceText,
  RUNG_COLUMNS,
  rungCells,
  workaroundEffect
} from './diagnosetext';

const MAX_TEXT = 1000;
const PAGE = 20;

/** The status colour class of an outcome or a kind (a Map: record strings are never keys). */
const OUTCOME_CLASS = new Map<string, string>([
  ['ok', 'nbc-status-compiled'],
  ['crash', 'nbc-status-failed'],
  ['accuracy', 'nbc-status-not_compiled'],
  ['not run', 'nbc-status-pending'],
  ['verified', 'nbc-status-verified'],
  ['tried, did not help', 'nbc-status-failed'],
  ['not tried', 'nbc-status-unverified']
]);

function badge(text: string): HTMLElement {
  return h(
    'span',
    { class: `nbc-status ${OUTCOME_CLASS.get(text) ?? 'nbc-status-pending'}` },
    clip(text, 40)
  );
}

function ladder(p: IDiagnosisPayload): HTMLElement {
  const table = h('table', { class: 'nbc-table nbc-diagnosis-ladder' });
  table.appendChild(
    h('thead', null, h('tr', null, ...RUNG_COLUMNS.map(c => h('th', null, c))))
  );
  const body = h('tbody');
  for (const r of p.rungs.slice(0, 10)) {
    const cells = rungCells(r);
    body.appendChild(
      h(
        'tr',
        { data: { outcome: clip(r.outcome, 20) } },
        h('td', null, h('code', null, clip(cells[0], 200))),
        h('td', null, cells[1]),
        h('td', null, badge(r.outcome)),
        ...cells.slice(3).map(c => h('td', { class: 'nbc-num' }, c))
      )
    );
    const why = r.error || r.note;
    if (why) {
      body.appendChild(
        h(
          'tr',
          null,
          h(
            'td',
            {
              class: 'nbc-meta',
              attrs: { colspan: String(RUNG_COLUMNS.length) }
            },
            clip(why, MAX_TEXT)
          )
        )
      );
    }
  }
  table.appendChild(body);
  return table;
}

function culprit(p: IDiagnosisPayload): HTMLElement | null {
  if (!p.culprit && p.lineno === null) {
    return null;
  }
  const b = p.bisection;
  return h(
    'div',
    { class: 'nbc-diagnosis-culprit' },
    h(
      'div',
      null,
      h('b', null, 'culprit: '),
      clip(p.culprit || '(not named)', MAX_TEXT)
    ),
    p.lineno !== null
      ? libraryLine(p.filename, p.lineno, p.line, undefined, p.cell_names)
      : null,
    b
      ? h(
          'div',
          { class: 'nbc-meta' },
          `CompilerBisector: backend ${clip(b.backend || '–', 60)}, subsystem ${clip(b.subsystem || '–', 60)}` +
            (b.bisect_number !== null ? `, #${b.bisect_number}` : '') +
            (b.debug_info ? ` (${clip(b.debug_info, 100)})` : '') +
            ` · ${b.steps} compiles, ${formatTime(b.elapsed_s)}` +
            (b.note ? ` · ${clip(b.note, 300)}` : '')
        )
      : null
  );
}

function workaround(w: IWorkaround, p: IDiagnosisPayload): HTMLElement {
  const effect = workaroundEffect(w, p.numel, p.mismatched);
  return h(
    'li',
    {
      class: `nbc-suggestion nbc-suggestion-${w.verified ? 'verified' : 'unverified'}`
    },
    h(
      'div',
      { class: 'nbc-suggestion-head' },
      badge(w.status),
      h('span', { class: 'nbc-badge' }, clip(w.kind, 30))
    ),
    h('div', { class: 'nbc-change' }, h('pre', null, clip(w.change, 5000))),
    effect ? h('div', null, clip(effect, MAX_TEXT)) : null,
    w.note ? h('div', { class: 'nbc-note' }, clip(w.note, MAX_TEXT)) : null
  );
}

export function renderDiagnosis(p: IDiagnosisPayload): HTMLElement {
  const wrap = h('div', { class: 'nbc-diagnosis' });
  wrap.appendChild(
    h(
      'div',
      { class: 'nbc-suggestion-head' },
      badge(p.kind),
      h('span', null, clip(p.summary, 3000))
    )
  );
  wrap.appendChild(
    h(
      'div',
      { class: 'nbc-meta' },
      clip(
        [
          p.inputs.join(', '),
          p.options,
          p.tolerance,
          `${p.elapsed_s.toFixed(1)} s of a ${p.budget_s.toFixed(0)} s budget`
        ]
          .filter(Boolean)
          .join(' · '),
        MAX_TEXT
      )
    )
  );
  wrap.appendChild(ladder(p));
  const c = culprit(p);
  if (c) {
    wrap.appendChild(c);
  }
  if (p.reference) {
    wrap.appendChild(
      h(
        'div',
        { class: 'nbc-diagnosis-reference' },
        h('b', null, 'float64: '),
        clip(referenceText(p.reference), MAX_TEXT)
      )
    );
  }
  if (p.workarounds.length) {
    wrap.appendChild(
      h('div', { class: 'nbc-subtitle' }, 'Workarounds, tried on copies')
    );
    const list = h('ol', { class: 'nbc-suggestion-list' });
    appendPaged(
      list,
      p.workarounds,
      w => workaround(w, p),
      PAGE,
      'workarounds'
    );
    wrap.appendChild(list);
  }
  if (p.error_detail) {
    wrap.appendChild(
      h(
        'details',
        null,
        h('summary', null, 'error'),
        h('pre', null, clip(p.error_detail, 20_000))
      )
    );
  }
  appendPaged(
    wrap,
    p.skipped,
    s => h('div', { class: 'nbc-note' }, `skipped: ${clip(s, MAX_TEXT)}`),
    PAGE,
    'skipped'
  );
  appendPaged(
    wrap,
    p.notes,
    n => h('div', { class: 'nbc-note' }, clip(n, MAX_TEXT)),
    PAGE,
    'notes'
  );
  if (p.truncated) {
    wrap.appendChild(
      h(
        'div',
        { class: 'nbc-meta' },
        'Long texts were cut to fit the output; the Diagnosis object in the kernel has them whole.'
      )
    );
  }
  return wrap;
}
