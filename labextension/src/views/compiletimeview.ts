/**
 * A compile-time record (`nbcompile.compile_time` / `%compile_time`) as DOM: cold and
 * warm-restart first calls, where the cold seconds went (phases, repeated blocks, cache
 * notes), and one row per remedy with its status, numbers and the code to apply. Text
 * only; bounded work.
 */

import { h } from '../ui/dom';
import { clip } from '../ui/format';
import { ICompileTimePayload } from '../model/compiletime';
import {
  compileTimeTitle,
  frameWords,
  ratio,
  seconds
} from './compiletimetext';

const MAX_ROWS = 20;

const STATUS_CLASS = new Map<string, string>([
  ['verified', 'nbc-status-verified'],
  ['did not help', 'nbc-status-failed'],
  ['inconclusive', 'nbc-status-unverified'],
  ['failed', 'nbc-status-failed'],
  ['not reproducible', 'nbc-status-failed'],
  ['does not apply', 'nbc-status-pending'],
  ['not tried', 'nbc-status-unverified']
]);

export function renderCompileTime(p: ICompileTimePayload): HTMLElement {
  const root = h('div', { class: 'nbc-compile-time' });
  root.appendChild(h('div', null, clip(compileTimeTitle(p), 400)));
  const phases = Object.entries(p.where.phases)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name, s]) => `${name} ${seconds(s)}`);
  if (phases.length) {
    root.appendChild(
      h(
        'div',
        null,
        `where ${seconds(p.where.total_s)} went (${p.where.frames.length} frame ` +
          'compile(s)' +
          (p.where.recompile_s > 0
            ? `, recompiles ${seconds(p.where.recompile_s)}`
            : '') +
          `): ${phases.join(', ')}`
      )
    );
  }
  const items = h('ul');
  for (const b of p.where.repeated.slice(0, MAX_ROWS)) {
    items.appendChild(
      h(
        'li',
        null,
        clip(
          `${b.count} x ${b.cls} in ${b.path || 'the model'}: traced ` +
            `${b.traced_copies} times, ` +
            `${Math.round(b.node_share * 100)}% of the ops ` +
            `(~${seconds(b.dynamo_s)} Dynamo, ~${seconds(b.inductor_s)} Inductor)`,
          400
        )
      )
    );
  }
  for (const f of p.where.frames.slice(0, MAX_ROWS)) {
    if (f.cache_note) {
      items.appendChild(
        h('li', null, clip(`${frameWords(f)}: ${f.cache_note}`, 400))
      );
    }
  }
  // this kernel's compiles compared with an earlier compile (here or in an earlier kernel)
  for (const f of p.kernel_compiles.slice(0, MAX_ROWS)) {
    if (f.cache_note && (f.key_changes.length || f.earlier)) {
      items.appendChild(
        h(
          'li',
          null,
          clip(`this kernel: ${frameWords(f)}: ${f.cache_note}`, 400)
        )
      );
    }
  }
  if (items.childElementCount) {
    root.appendChild(items);
  }
  const table = h('table', { class: 'nbc-table nbc-compile-time-remedies' });
  table.appendChild(
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ...[
          'remedy',
          'status',
          'cold',
          'restart',
          'steady',
          'outputs',
          'change'
        ].map(c => h('th', null, c))
      )
    )
  );
  const body = h('tbody');
  for (const r of p.remedies.slice(0, MAX_ROWS)) {
    const same =
      r.same_result === null ? '-' : r.same_result ? 'same' : 'differs';
    body.appendChild(
      h(
        'tr',
        { data: { kind: clip(r.kind, 30) } },
        h('td', null, h('code', null, clip(r.kind, 30))),
        h(
          'td',
          null,
          h(
            'span',
            {
              class: `nbc-status ${STATUS_CLASS.get(r.status) ?? 'nbc-status-pending'}`
            },
            clip(r.status, 40)
          )
        ),
        h('td', { class: 'nbc-num' }, seconds(r.cold_s)),
        h('td', { class: 'nbc-num' }, seconds(r.restart_s)),
        h('td', { class: 'nbc-num' }, ratio(r.steady_ratio)),
        h('td', null, same),
        h(
          'td',
          null,
          r.change ? h('pre', null, clip(r.change, 1000)) : '',
          h('small', null, clip(r.note, 600))
        )
      )
    );
  }
  table.appendChild(body);
  // Scrolls sideways in a narrow pane (the sidebar), as the other views' tables do.
  root.appendChild(h('div', { class: 'nbc-table-wrap' }, table));
  for (const n of p.notes.slice(0, 5)) {
    root.appendChild(h('div', null, h('small', null, clip(n, 400))));
  }
  root.appendChild(
    h(
      'div',
      null,
      h(
        'small',
        null,
        `${p.runs} fresh processes, ${seconds(p.elapsed_s)}` +
          (p.truncated ? ' (cut to the output budget)' : '')
      )
    )
  );
  return root;
}
