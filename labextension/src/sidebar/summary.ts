/** The selected target's summary: kind, status, options, counts, error and notes. */

import { button, Child, h } from '../ui/dom';
import {
  classSuffix,
  clip,
  compilingText,
  formatSeconds,
  optionsText,
  statusText
} from '../ui/format';
import { ITargetRecord } from '../model/target';
import { ISectionHost, MAX_TEXT, sourceLink } from './section';

function nowSeconds(): number {
  return Date.now() / 1000;
}

/** The status pill; a compiling one ticks through `data-compiling-since`. */
export function statusBadge(t: ITargetRecord): HTMLElement {
  const span = h(
    'span',
    { class: `nbc-status nbc-status-${classSuffix(t.status)}` },
    statusText(t, nowSeconds())
  );
  if (t.status === 'compiling' && t.compiling_since) {
    span.dataset.compilingSince = String(t.compiling_since);
  }
  return span;
}

/** Tick every `compiling… Ns` pill under `root` once; returns how many there were. */
export function tickCompiling(root: HTMLElement): number {
  const now = nowSeconds();
  const pills = root.querySelectorAll<HTMLElement>('[data-compiling-since]');
  pills.forEach(el => {
    el.textContent = compilingText(now - Number(el.dataset.compilingSince));
  });
  return pills.length;
}

export class SummaryView {
  constructor(private readonly _host: ISectionHost) {}

  readonly node = h('div', { class: 'nbc-summary-wrap' });

  update(t: ITargetRecord): void {
    if (t === this._target) {
      return;
    }
    this._target = t;
    this.node.replaceChildren(...this._render(t));
  }

  private _render(t: ITargetRecord): Node[] {
    const dl = h('dl', { class: 'nbc-summary' });
    const row = (label: string, ...value: Child[]) => {
      dl.appendChild(h('dt', null, label));
      dl.appendChild(h('dd', null, ...value));
    };
    row('kind', t.kind);
    row('status', statusBadge(t));
    if (t.progress_text) {
      row('compiling', clip(t.progress_text, MAX_TEXT));
    }
    row('options', clip(optionsText(t.options), 500));
    if (t.stance && t.stance !== 'default') {
      row('stance', clip(t.stance, 100));
    }
    row('graphs', String(t.graph_count));
    row('breaks', String(t.graph_breaks.length));
    row('recompiles', String(t.recompiles.length));
    const others = t.kernels.length - t.generated_kernel_count;
    row(
      'kernels',
      `${t.generated_kernel_count} generated` +
        (others > 0 ? ` (+${others} extern/wrapper)` : '')
    );
    row(
      'compile time',
      t.compile_time_s > 0 ? formatSeconds(t.compile_time_s) : '—'
    );
    if (t.compiled_object) {
      row('compiled as', h('code', null, clip(t.compiled_object, 300)));
    }
    if (t.wrapper) {
      row('wrapper', clip(t.wrapper, 300));
    }
    if (t.cell.execution_count !== null || t.cell.cell_id) {
      const label = this._host.source?.cellLabel(t.cell);
      row(
        'defined in',
        button(
          label ? `cell ${label}` : 'its cell',
          () => void this._host.source?.reveal(t.cell, null),
          'nbc-link',
          'Show the defining cell'
        )
      );
    }
    const out: Node[] = [dl];
    if (t.error) {
      const err = t.error;
      out.push(
        h(
          'div',
          { class: 'nbc-error' },
          h('b', null, clip(err.type, 200) || 'error'),
          ': ',
          clip(err.message, MAX_TEXT),
          err.lineno !== null
            ? sourceLink(this._host, t.cell, err.lineno, err.line)
            : null
        )
      );
    }
    const notes = t.notes.slice(0, 20);
    for (const note of notes) {
      out.push(h('div', { class: 'nbc-note' }, clip(note, MAX_TEXT)));
    }
    if (t.notes.length > notes.length) {
      out.push(
        h(
          'div',
          { class: 'nbc-meta' },
          `${t.notes.length - notes.length} more notes not shown`
        )
      );
    }
    const marks = t.omitted.slice(0, 10);
    for (const m of marks) {
      out.push(
        h(
          'div',
          { class: 'nbc-note nbc-omitted' },
          `${m.count} more ${clip(m.unit, 20)} of ${clip(m.field, 80)} cut from the saved output; in the kernel: `,
          h('code', null, clip(m.how, 200))
        )
      );
    }
    if (t.omitted.length > marks.length) {
      out.push(
        h(
          'div',
          { class: 'nbc-meta' },
          `${t.omitted.length - marks.length} more cuts not shown`
        )
      );
    }
    if (t.truncated) {
      out.push(
        h(
          'div',
          { class: 'nbc-note' },
          'Long texts were capped in the published record; ',
          h('code', null, `nbcompile.report(${clip(t.name, 100)})`),
          ' in the kernel has them whole.'
        )
      );
    }
    return out;
  }

  private _target: ITargetRecord | null = null;
}
