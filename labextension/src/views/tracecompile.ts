/**
 * One compile of a trace: its status and time, failure and recompile reasons, cache
 * counts, phases, graph breaks with file:line, what torch runs in place of the frame (as
 * far as the log holds it), and its FX graphs, guards, kernels and output code in a code
 * view.
 */

import { ICodeSink } from '../ui/codesink';
import { appendPaged, externalLink, h } from '../ui/dom';
import { libraryLine } from '../ui/sourceline';
import {
  classSuffix,
  clip,
  editorMimeType,
  formatSeconds,
  plural,
  rankText,
  shortPath
} from '../ui/format';
import { ITraceCompile } from '../model/trace';
import { phaseBar } from './phasebar';

/** Longest single text shown, and graph breaks drawn per page. */
const MAX_TEXT = 2000;
const PAGE = 50;

interface ICodeItem {
  label: string;
  text: string;
  mime: string;
}

/** The compile view's contents (the trace view puts them in its compile pane). */
export function renderCompile(c: ITraceCompile, code: ICodeSink): Node[] {
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
          libraryLine(
            gb.filename,
            gb.lineno,
            gb.line,
            '(source not available here)'
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
  const runs = c.runs_as;
  if (runs && (runs.steps.length || runs.problem)) {
    // what torch runs in place of the frame, as far as the log holds it (its words)
    out.push(
      h('div', { class: 'nbc-meta' }, 'runs as'),
      h(
        'ol',
        { class: 'nbc-runs-as-steps' },
        ...runs.steps.slice(0, PAGE).map(s =>
          h(
            'li',
            {
              class: `nbc-runs-as-step nbc-step-${s.kind}`,
              data: { kind: s.kind }
            },
            h('span', { class: 'nbc-step-text' }, clip(s.text, MAX_TEXT))
          )
        )
      )
    );
    if (runs.problem) {
      out.push(
        h(
          'div',
          { class: 'nbc-note nbc-runs-as-problem' },
          clip(runs.problem, MAX_TEXT)
        )
      );
    }
  }
  const items: ICodeItem[] = [];
  if (runs?.source || runs?.dis) {
    items.push({
      label: runs.source ? 'runs as (source)' : 'runs as (bytecode)',
      text: runs.source || runs.dis,
      mime: runs.source ? 'text/x-python' : 'text/plain'
    });
  }
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
