/**
 * Suggestions (`nbcompile.suggest` / `%suggest`) as DOM: the baseline, then one row per
 * proposed change — the problem it addresses, the change as a copyable snippet, whether
 * it was proven on a copy, before and after side by side, the numeric check and what it
 * costs. Shared by the sidebar and the inline renderer; text only; bounded work.
 */

import { appendPaged, button, h } from '../ui/dom';
import {
  classSuffix,
  clip,
  formatNumber,
  formatTime,
  placeText
} from '../ui/format';
import type { CellNames } from '../model/parts';
import { IMeasured, ISuggestion, ISuggestionsPayload } from '../model/suggest';

const PAGE = 50;
const MAX_TEXT = 1000;

function measuredText(m: IMeasured): string {
  if (m.error) {
    return `failed: ${clip(m.error, 300)}`;
  }
  return (
    `${m.graphs} graph${m.graphs === 1 ? '' : 's'}, ${m.breaks} break${m.breaks === 1 ? '' : 's'}, ` +
    `${m.recompiles} recompile${m.recompiles === 1 ? '' : 's'}` +
    (m.time_s !== null ? `, ${formatTime(m.time_s)}/call` : '')
  );
}

/** Copy `text` to the clipboard; says so on the button for a moment. */
function copyButton(text: string): HTMLButtonElement {
  const b = button(
    'Copy',
    () => {
      void navigator.clipboard?.writeText(text).then(
        () => {
          b.textContent = 'Copied';
          window.setTimeout(() => (b.textContent = 'Copy'), 1500);
        },
        () => (b.textContent = 'Copy failed')
      );
    },
    'nbc-button nbc-small nbc-copy',
    'Copy the change'
  );
  return b;
}

function renderItem(
  s: ISuggestion,
  baseline: IMeasured,
  names: CellNames
): HTMLElement {
  const status = s.verified ? 'verified' : s.status || 'not verified';
  const where =
    s.problem.lineno !== null || s.problem.filename
      ? placeText(s.problem.filename ?? '', s.problem.lineno, names)
      : '';
  const same =
    s.same_result.ok === null
      ? 'result not compared'
      : `${s.same_result.ok ? 'same result' : 'DIFFERENT result'}` +
        (s.same_result.max_abs_diff !== null
          ? ` (max |diff| ${formatNumber(s.same_result.max_abs_diff)}`
          : ' (') +
        (s.same_result.tolerance
          ? `, ${clip(s.same_result.tolerance, 200)})`
          : ')');
  return h(
    'li',
    {
      class: `nbc-suggestion nbc-suggestion-${s.verified ? 'verified' : 'unverified'}`
    },
    h(
      'div',
      { class: 'nbc-suggestion-head' },
      h(
        'span',
        {
          class: `nbc-status nbc-status-${classSuffix(s.verified ? 'verified' : 'unverified')}`
        },
        clip(status, 40)
      ),
      h('span', { class: 'nbc-badge' }, clip(s.kind, 30)),
      where ? h('span', { class: 'nbc-lineno' }, clip(where, 300)) : null,
      s.problem.line
        ? h('code', { class: 'nbc-line' }, clip(s.problem.line.trim(), 300))
        : null
    ),
    s.problem.reason
      ? h('div', { class: 'nbc-reason' }, clip(s.problem.reason, MAX_TEXT))
      : null,
    h(
      'div',
      { class: 'nbc-change' },
      h('pre', null, clip(s.change, 20_000)),
      copyButton(s.change)
    ),
    h(
      'table',
      { class: 'nbc-table nbc-before-after' },
      h(
        'tr',
        null,
        h('th', null, 'before'),
        h('td', null, measuredText(baseline))
      ),
      h(
        'tr',
        null,
        h('th', null, 'after'),
        h('td', null, s.after ? measuredText(s.after) : 'not run')
      ),
      h('tr', null, h('th', null, 'result'), h('td', null, same))
    ),
    s.note ? h('div', { class: 'nbc-note' }, clip(s.note, MAX_TEXT)) : null
  );
}

export function renderSuggestions(p: ISuggestionsPayload): HTMLElement {
  const wrap = h('div', { class: 'nbc-suggestions' });
  const proven = p.items.filter(s => s.verified).length;
  wrap.appendChild(
    h(
      'div',
      { class: 'nbc-meta' },
      `baseline: ${measuredText(p.baseline)} · ${p.items.length} tried, ${proven} proven on a copy · ` +
        `${p.elapsed_s.toFixed(1)} s of a ${p.budget_s.toFixed(0)} s budget`
    )
  );
  if (!p.items.length) {
    wrap.appendChild(
      h(
        'p',
        { class: 'nbc-muted' },
        p.problems.length
          ? 'Nothing to propose for these problems.'
          : 'No graph breaks or recompiles to fix.'
      )
    );
  }
  const list = h('ol', { class: 'nbc-suggestion-list' });
  appendPaged(
    list,
    p.items,
    s => renderItem(s, p.baseline, p.cell_names),
    PAGE,
    'suggestions'
  );
  wrap.appendChild(list);
  appendPaged(
    wrap,
    p.notes,
    n => h('div', { class: 'nbc-note' }, clip(n, MAX_TEXT)),
    20,
    'notes'
  );
  return wrap;
}
