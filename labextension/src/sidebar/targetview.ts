/** The selected target: its header, summary and one section per concern. */

import { append, h } from '../ui/dom';
import { clip } from '../ui/format';
import { ITargetEntry } from '../records/store';
import { BreaksSection } from './breaks';
import { CodeSection } from './code';
import { CompilesSection, GraphsSection, GuardsSection } from './compiles';
import { RecompilesSection } from './recompiles';
import { RunsAsSection } from './runsas';
import { ISectionHost, Section } from './section';
import { SummaryView } from './summary';
import { TorchLogsSection } from './torchlogs';

export class TargetView {
  constructor(host: ISectionHost) {
    this._summary = new SummaryView(host);
    const code = new CodeSection(host);
    const graphs = new GraphsSection(host);
    this._sections = [
      new BreaksSection(host),
      new RecompilesSection(host),
      code,
      new RunsAsSection(host, {
        graph: (t, c, i) => graphs.showGraph(t, c, i),
        kernels: (t, c) => code.showCompile(t, c.compile_id)
      }),
      graphs,
      new GuardsSection(host),
      new CompilesSection(host),
      new TorchLogsSection(host)
    ];
    this.node = h(
      'div',
      { class: 'nbc-target' },
      this._header,
      this._summary.node,
      ...this._sections.map(s => s.node)
    );
  }

  readonly node: HTMLDivElement;

  /** Show `entry`; each part re-renders only if its record changed. */
  update(entry: ITargetEntry): void {
    if (entry === this._entry) {
      return;
    }
    this._entry = entry;
    const t = entry.record;
    this.node.dataset.targetId = t.id;
    this._header.replaceChildren(
      h('span', { class: 'nbc-target-title' }, clip(t.name, 200))
    );
    append(
      this._header,
      entry.source === 'saved'
        ? h(
            'span',
            {
              class: 'nbc-badge nbc-badge-saved',
              title:
                'Read from the notebook\u2019s saved outputs, not from a running kernel'
            },
            'saved output'
          )
        : null
    );
    this._summary.update(t);
    for (const s of this._sections) {
      s.update(t);
    }
  }

  refresh(): void {
    for (const s of this._sections) {
      s.refresh();
    }
  }

  private _header = h('div', { class: 'nbc-target-header' });
  private _summary: SummaryView;
  private _sections: Section[];
  private _entry: ITargetEntry | null = null;
}
