/**
 * The "Runs as" section: what torch runs in place of each compiled frame (the record's
 * `runs_as`), laid out as JupyterLab's debugger lays out a stopped program: the steps as
 * a list (a compiled graph, the Python run at a graph break, the resume function that
 * goes on) beside the code. A graph step links to that compile's FX graph and kernels, a
 * resume step to the compile of its frame, a Python step to its cell line. The code is
 * the transformed code as Python, or, where the record says why there is none, that
 * sentence and the bytecode (`dis`). Every word shown is the record's; text only.
 */

import { button, h } from '../ui/dom';
import { clip, compileLabel, isCellFile } from '../ui/format';
import { IRunStep } from '../model/parts';
import { ICompile, ITargetRecord } from '../model/target';
import { ISectionHost, MAX_TEXT, PAGE, Section } from './section';

/** Where the section's links lead: the target view's other sections. */
export interface IRunsAsLinks {
  /** Show graph `index` of compile `c` in the FX graphs section. */
  graph(t: ITargetRecord, c: ICompile, index: number): void;
  /** Show compile `c`'s kernels in the generated code section. */
  kernels(t: ITargetRecord, c: ICompile): void;
}

export class RunsAsSection extends Section {
  constructor(
    host: ISectionHost,
    private readonly _links: IRunsAsLinks
  ) {
    super(host, 'runs_as', 'Runs as', false);
  }

  refresh(): void {
    this.host.codeView(this.key).refresh();
  }

  /** Show compile `index` of `t` (an index into `t.compiles`). */
  showCompile(t: ITargetRecord, index: number): void {
    this._picked.set(t.id, index);
    this.show();
  }

  protected count(t: ITargetRecord): number {
    return t.compiles.filter(c => c.runs_as).length;
  }

  protected render(t: ITargetRecord): HTMLElement {
    const wrap = h('div', { class: 'nbc-runs-as' });
    const known = t.compiles
      .map((c, i) => [c, i] as const)
      .filter(([c]) => c.runs_as)
      .slice(0, PAGE);
    if (!known.length) {
      wrap.appendChild(
        h('p', { class: 'nbc-muted' }, 'No transformed code captured yet.')
      );
      return wrap;
    }
    let picked = this._picked.get(t.id) ?? known[0][1];
    if (!t.compiles[picked]?.runs_as) {
      picked = known[0][1];
    }
    const select = h('select', { class: 'nbc-select' });
    for (const [c, i] of known) {
      const opt = h('option', null, clip(label(c), 200));
      opt.value = String(i);
      select.appendChild(opt);
    }
    select.value = String(picked);
    select.addEventListener('change', () =>
      this.showCompile(t, Number(select.value))
    );
    if (known.length > 1) {
      wrap.appendChild(select);
    }
    const c = t.compiles[picked];
    const ra = c.runs_as;
    if (!ra) {
      return wrap;
    }
    wrap.dataset.compileId = c.compile_id;
    const steps = h('ol', { class: 'nbc-runs-as-steps' });
    for (const s of ra.steps.slice(0, PAGE)) {
      steps.appendChild(this._step(t, c, s));
    }
    wrap.appendChild(steps);
    if (ra.problem) {
      wrap.appendChild(
        h(
          'div',
          { class: 'nbc-note nbc-runs-as-problem' },
          clip(ra.problem, MAX_TEXT)
        )
      );
    }
    const view = this.host.codeView(this.key);
    wrap.appendChild(view.node);
    const code = ra.source || ra.dis;
    view.setText(
      code,
      ra.source ? 'text/x-python' : 'text/plain',
      clip(label(c), 200)
    );
    return wrap;
  }

  private _step(t: ITargetRecord, c: ICompile, s: IRunStep): HTMLElement {
    const item = h('li', {
      class: `nbc-runs-as-step nbc-step-${s.kind}`,
      data: { kind: s.kind }
    });
    const text = clip(s.text, MAX_TEXT);
    if (s.kind === 'graph') {
      item.appendChild(h('span', { class: 'nbc-step-text' }, text));
      const index = s.graph;
      if (index !== null && index < c.graphs.length) {
        item.appendChild(
          button(
            'FX graph',
            () => this._links.graph(t, c, index),
            'nbc-button nbc-small nbc-step-graph-link',
            'Show this graph in the FX graphs section'
          )
        );
      }
      if (
        t.kernels.some(
          k => k.compile_id === c.compile_id && k.kind !== 'wrapper'
        )
      ) {
        item.appendChild(
          button(
            'kernels',
            () => this._links.kernels(t, c),
            'nbc-button nbc-small nbc-step-kernels-link',
            'Show this compile\u2019s kernels in the generated code section'
          )
        );
      }
    } else if (s.kind === 'python') {
      const lineno = s.lineno;
      item.appendChild(
        lineno !== null && isCellFile(c.filename, t.cell)
          ? button(
              text,
              () => void this.host.source?.reveal(t.cell, lineno),
              'nbc-source-link nbc-step-text',
              'Show this line in the notebook'
            )
          : h('span', { class: 'nbc-step-text' }, text)
      );
    } else {
      // the latest compile of the resume function's frame: what runs now
      let next = -1;
      t.compiles.forEach((x, i) => {
        if (s.frame && x.frame === s.frame) {
          next = i;
        }
      });
      item.appendChild(
        next >= 0
          ? button(
              text,
              () => this.showCompile(t, next),
              'nbc-source-link nbc-step-text nbc-step-resume-link',
              'Show what torch runs in place of this resume function'
            )
          : h('span', { class: 'nbc-step-text' }, text)
      );
    }
    return item;
  }

  private _picked = new Map<string, number>();
}

function label(c: ICompile): string {
  return compileLabel(c);
}
