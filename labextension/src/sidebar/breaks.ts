/** The "Graph breaks" section: where each break is, why, and Dynamo's hint. */

import { appendPaged, externalLink, h } from '../ui/dom';
import { libraryLine } from '../ui/sourceline';
import { cellFrame, clip, isCellFile } from '../ui/format';
import { IGraphBreak } from '../model/parts';
import { ITargetRecord } from '../model/target';
import { ISectionHost, MAX_TEXT, PAGE, Section, sourceLink } from './section';

export class BreaksSection extends Section {
  constructor(host: ISectionHost) {
    super(host, 'breaks', 'Graph breaks', true);
  }

  protected count(t: ITargetRecord): number {
    return t.graph_breaks.length;
  }

  protected render(t: ITargetRecord): HTMLElement {
    if (!t.graph_breaks.length) {
      return h(
        'p',
        { class: 'nbc-muted' },
        t.status === 'pending'
          ? 'Not compiled yet: call it once.'
          : t.status === 'compiled_inside'
            ? `Compiled inside ${t.compiled_inside}: its breaks are listed there.`
            : 'No graph breaks: each frame compiled as one graph.'
      );
    }
    const list = h('ol', { class: 'nbc-breaks' });
    appendPaged(
      list,
      t.graph_breaks,
      gb => this._renderBreak(t, gb),
      PAGE,
      'breaks'
    );
    return list;
  }

  private _renderBreak(t: ITargetRecord, gb: IGraphBreak): HTMLElement {
    const item = h('li', { class: 'nbc-break' });
    // Another cell's code (a helper it defined) is named as the kernel names that cell.
    const otherCell =
      gb.filename !== null &&
      gb.filename !== t.cell.filename &&
      t.cell_names.has(gb.filename);
    if (gb.filename && (otherCell || !isCellFile(gb.filename, t.cell))) {
      // A break outside this cell: name the file, and link the cell line that led there.
      item.appendChild(
        libraryLine(gb.filename, gb.lineno, gb.line, undefined, t.cell_names)
      );
      const via = cellFrame(gb.stack, t.cell);
      if (via) {
        item.appendChild(
          h('div', { class: 'nbc-meta' }, 'reached from your cell:')
        );
        item.appendChild(sourceLink(this.host, t.cell, via.lineno, via.line));
      }
    } else {
      item.appendChild(sourceLink(this.host, t.cell, gb.lineno, gb.line));
    }
    item.appendChild(
      h(
        'div',
        { class: 'nbc-reason' },
        clip(gb.reason || gb.gb_type || 'graph break', MAX_TEXT)
      )
    );
    if (gb.explanation && !gb.reason.includes(gb.explanation)) {
      item.appendChild(
        h('div', { class: 'nbc-explanation' }, clip(gb.explanation, MAX_TEXT))
      );
    }
    if (gb.hint) {
      item.appendChild(
        h(
          'div',
          { class: 'nbc-hint' },
          h('b', null, 'Hint: '),
          clip(gb.hint, MAX_TEXT)
        )
      );
    }
    const meta = h('div', { class: 'nbc-meta' });
    if (gb.gb_id || gb.doc_url) {
      meta.append(
        externalLink(
          gb.doc_url,
          clip(gb.gb_id || 'documentation', 20),
          'What this graph break means (PyTorch docs)'
        ),
        ' '
      );
    }
    if (gb.compile_id) {
      meta.append(`first seen in compile ${clip(gb.compile_id, 100)}`);
    }
    if (meta.childNodes.length) {
      item.appendChild(meta);
    }
    return item;
  }
}
