/**
 * The per-compile sections: "FX graphs" and "Guards" (a picker over the compiles and a
 * code view) and "Compiles" (a table of every compile with status, ops, time, phases
 * as a stacked bar, guard latency, tracing a graph break made Dynamo start over, cache).
 */

import { appendPaged, h } from '../ui/dom';
import {
  clip,
  compileLabel,
  formatSeconds,
  nameCells,
  plural
} from '../ui/format';
import { ICompile, ITargetRecord } from '../model/target';
import {
  CUDAGRAPH_CALL_HEAD,
  cudagraphCallRow,
  cudagraphText
} from '../views/cudagraphtext';
import { hazardNode } from '../views/inlinesummary';
import { phaseBar } from '../views/phasebar';
import { ISectionHost, PAGE, Section } from './section';

interface IPickItem {
  label: string;
  text: string;
}

/** Options listed in a picker (a `<select>`); more are reachable from the Compiles table. */
const MAX_PICK = 500;

abstract class PickerSection extends Section {
  refresh(): void {
    this.host.codeView(this.key).refresh();
  }

  protected abstract items(t: ITargetRecord): IPickItem[];
  protected abstract readonly mimeType: string;
  protected abstract readonly empty: string;

  protected render(t: ITargetRecord): HTMLElement {
    const wrap = h('div', { class: `nbc-${this.key}` });
    const items = this.items(t).slice(0, MAX_PICK);
    if (!items.length) {
      wrap.appendChild(h('p', { class: 'nbc-muted' }, this.empty));
      return wrap;
    }
    let selected = this._picked.get(t.id) ?? 0;
    if (selected >= items.length) {
      selected = 0;
    }
    const view = this.host.codeView(this.key);
    const select = h('select', { class: 'nbc-select' });
    items.forEach((item, i) => {
      const opt = h('option', null, clip(item.label, 200));
      opt.value = String(i);
      select.appendChild(opt);
    });
    select.value = String(selected);
    const show = (i: number) => {
      this._picked.set(t.id, i);
      view.setText(items[i].text, this.mimeType, clip(items[i].label, 200));
    };
    select.addEventListener('change', () => show(Number(select.value)));
    if (items.length > 1) {
      wrap.appendChild(select);
    }
    wrap.appendChild(view.node);
    show(selected);
    return wrap;
  }

  /** Show item `index` of `t`. */
  protected pick(t: ITargetRecord, index: number): void {
    this._picked.set(t.id, index);
    this.show();
  }

  private _picked = new Map<string, number>();
}

export class GraphsSection extends PickerSection {
  constructor(host: ISectionHost) {
    super(host, 'graphs', 'FX graphs', false);
  }

  protected readonly mimeType = 'text/x-python';
  protected readonly empty = 'No FX graphs captured yet.';

  protected count(t: ITargetRecord): number {
    let n = 0;
    for (const c of t.compiles) {
      n += c.graphs.length;
    }
    return n;
  }

  /** Show graph `index` of compile `c`. */
  showGraph(t: ITargetRecord, c: ICompile, index: number): void {
    let at = 0;
    for (const x of t.compiles) {
      if (x === c) {
        this.pick(t, at + index);
        return;
      }
      at += x.graphs.length;
    }
  }

  protected items(t: ITargetRecord): IPickItem[] {
    const items: IPickItem[] = [];
    for (const c of t.compiles) {
      c.graphs.forEach((g, i) => {
        items.push({
          label:
            compileLabel(c) +
            (c.graphs.length > 1 ? ` · graph ${i + 1}` : '') +
            (c.graph_op_count ? ` · ${plural(c.graph_op_count, 'op')}` : ''),
          text: nameCells(g, t.cell_names)
        });
      });
      if (items.length >= MAX_PICK) {
        break;
      }
    }
    return items;
  }
}

export class GuardsSection extends PickerSection {
  constructor(host: ISectionHost) {
    super(host, 'guards', 'Guards', false);
  }

  protected readonly mimeType = 'text/plain';
  protected readonly empty = 'No guards captured yet.';

  protected count(t: ITargetRecord): number {
    return t.compiles.filter(c => c.guards).length;
  }

  protected items(t: ITargetRecord): IPickItem[] {
    return t.compiles
      .filter(c => c.guards)
      .map(c => ({
        label: compileLabel(c),
        text: nameCells(c.guards.replace(/^\n+/, ''), t.cell_names)
      }));
  }
}

export class CompilesSection extends Section {
  constructor(host: ISectionHost) {
    super(host, 'compiles', 'Compiles', false);
  }

  protected count(t: ITargetRecord): number {
    return t.compiles.length;
  }

  protected render(t: ITargetRecord): HTMLElement {
    if (!t.compiles.length) {
      return h('p', { class: 'nbc-muted' }, 'Nothing compiled yet.');
    }
    // CUDA graphs only where torch said something about them (--mode reduce-overhead)
    const graphed = t.compiles.some(c => c.cudagraphs !== null);
    const head = [
      'compile',
      'frame',
      'status',
      'ops',
      'time',
      'phases',
      'guards/call',
      'lost to restart',
      'cache',
      ...(graphed ? ['CUDA graphs'] : [])
    ];
    // Bars share one scale (the longest compile) so they compare; the legend sums all.
    let scale = 0;
    const totals = new Map<string, number>();
    for (const c of t.compiles) {
      let sum = 0;
      for (const [name, s] of c.phases) {
        sum += s > 0 ? s : 0;
        totals.set(name, (totals.get(name) ?? 0) + (s > 0 ? s : 0));
      }
      scale = Math.max(scale, sum);
    }
    const tbody = h('tbody');
    appendPaged(
      tbody,
      t.compiles,
      c => {
        const cache = [...c.cache]
          .filter(([, n]) => n > 0)
          .slice(0, 10)
          .map(
            ([k, n]) =>
              `${k.replace(/_cache_/, ' ').replace(/_/g, ' ')}${n > 1 ? ` ×${n}` : ''}`
          )
          .join(', ');
        const total =
          c.times.get('total_s') ?? c.times.get('entire_frame_compile_time_s');
        return h(
          'tr',
          {
            title: c.recompile_reason
              ? `recompiled: ${clip(c.recompile_reason, 500)}`
              : undefined
          },
          h('td', null, clip(c.compile_id, 50)),
          h(
            'td',
            {
              class: 'nbc-frame',
              title:
                c.code && c.code !== c.frame
                  ? `torch's frame: ${clip(c.frame, 200)}`
                  : undefined
            },
            clip(c.code || c.frame, 200)
          ),
          h('td', null, clip(c.status + (c.error ? `: ${c.error}` : ''), 500)),
          h('td', { class: 'nbc-num' }, String(c.graph_op_count)),
          h(
            'td',
            { class: 'nbc-num' },
            total !== undefined ? formatSeconds(total) : ''
          ),
          h('td', { class: 'nbc-phase-cell' }, phaseBar(c.phases, scale)),
          h(
            'td',
            { class: 'nbc-num' },
            c.guard_latency_s !== null ? formatSeconds(c.guard_latency_s) : ''
          ),
          h(
            'td',
            { class: 'nbc-num' },
            c.restart_s !== null ? formatSeconds(c.restart_s) : ''
          ),
          h('td', null, clip(cache, 300)),
          ...(graphed
            ? [h('td', null, clip(cudagraphText(c.cudagraphs), 500))]
            : [])
        );
      },
      PAGE,
      'compiles'
    );
    const table = h(
      'table',
      { class: 'nbc-table nbc-compiles' },
      h('thead', null, h('tr', null, ...head.map(x => h('th', null, x)))),
      tbody
    );
    const wrap = h('div', { class: 'nbc-compiles-wrap' });
    if (totals.size) {
      wrap.appendChild(
        h('div', { class: 'nbc-meta' }, 'compile time by phase, all compiles')
      );
      let sum = 0;
      totals.forEach(s => (sum += s));
      wrap.appendChild(phaseBar(totals, sum, true));
    }
    wrap.appendChild(h('div', { class: 'nbc-table-wrap' }, table));
    if (t.cudagraph_calls.length) {
      wrap.appendChild(cudagraphCalls(t));
    }
    if (t.cudagraph_hazards.length) {
      wrap.appendChild(
        h(
          'div',
          { class: 'nbc-cudagraph-hazards' },
          h('div', { class: 'nbc-meta' }, 'CUDA-graph outputs your names hold'),
          ...t.cudagraph_hazards.map(hazardNode)
        )
      );
    }
    return wrap;
  }
}

/** CUDA graphs per call: warm-up, recording, replays and the graph pool, per cell. */
function cudagraphCalls(t: ITargetRecord): HTMLElement {
  const tbody = h('tbody');
  appendPaged(
    tbody,
    t.cudagraph_calls,
    c =>
      h(
        'tr',
        null,
        ...cudagraphCallRow(c).map((x, i) =>
          h('td', i < 8 && i !== 1 ? { class: 'nbc-num' } : null, clip(x, 500))
        )
      ),
    PAGE,
    'calls'
  );
  return h(
    'div',
    { class: 'nbc-table-wrap' },
    h('div', { class: 'nbc-meta' }, 'CUDA graphs per call'),
    h(
      'table',
      { class: 'nbc-table nbc-cudagraph-calls' },
      h(
        'thead',
        null,
        h('tr', null, ...CUDAGRAPH_CALL_HEAD.map(x => h('th', null, x)))
      ),
      tbody
    )
  );
}
