/**
 * Mime renderer extension for `application/vnd.nbcompile.v1+json`: the compact inline
 * summary under a `%%compile` cell, with a button that opens the Compile inspector on
 * a target. Text only (never HTML from the record); re-rendered on every
 * `update_display_data`.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { hasInspector, openInspector } from './bridge';
import { button, h } from './dom';
import { ISummaryPayload, MIME_TYPE, parsePayload, statusText, whereText } from './records';
import { countsText, plural, renderTiming } from './views';

export class InlineSummary extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('nbc-inline');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const payload = parsePayload(model.data[this._mimeType]);
    const plain = model.data['text/plain'];
    this.node.replaceChildren();
    if (!payload || payload.record === 'unknown') {
      // Not ours to interpret: show the kernel's own plain-text fallback.
      this.node.appendChild(
        h('pre', { class: 'nbc-inline-plain' }, typeof plain === 'string' ? plain : 'nbcompile record')
      );
      return Promise.resolve();
    }
    if (payload.record === 'timing') {
      this.node.appendChild(
        h('div', { class: 'nbc-inline-head' }, h('b', null, 'nbcompile'), ' · ', payload.title)
      );
      this.node.appendChild(renderTiming(payload));
      return Promise.resolve();
    }
    this._renderSummary(payload);
    return Promise.resolve();
  }

  private _renderSummary(p: ISummaryPayload): void {
    const head = h(
      'div',
      { class: 'nbc-inline-head' },
      h('b', null, 'nbcompile'),
      ' · ',
      p.targets.length ? plural(p.targets.length, 'target') : 'nothing to compile in this cell'
    );
    this.node.appendChild(head);
    const canOpen = hasInspector();
    const now = Date.now() / 1000;
    for (const t of p.targets) {
      const row = h(
        'div',
        { class: 'nbc-inline-row', data: { targetId: t.id } },
        h('code', { class: 'nbc-target-name' }, t.name),
        h('span', { class: 'nbc-badge' }, t.kind),
        h(
          'span',
          { class: `nbc-status nbc-status-${/^[a-z]+$/.test(t.status) ? t.status : 'other'}` },
          statusText(t, now)
        ),
        h('span', { class: 'nbc-inline-counts' }, countsText(t))
      );
      if (canOpen) {
        row.appendChild(
          button(
            'Inspect',
            () => void openInspector(t.id, this.node, p),
            'nbc-button nbc-small nbc-inspect',
            `Open the Compile inspector on ${t.name}`
          )
        );
      }
      this.node.appendChild(row);
      const details = h('ul', { class: 'nbc-inline-details' });
      for (const note of t.notes) {
        details.appendChild(h('li', null, note));
      }
      for (const gb of t.graph_breaks) {
        details.appendChild(
          h(
            'li',
            null,
            `graph break at ${whereText(gb.filename, gb.lineno, t.cell, gb.stack)}: `,
            h('code', null, gb.line.trim()),
            ` — ${gb.gb_type || gb.reason}`
          )
        );
      }
      for (const rc of t.recompiles) {
        details.appendChild(h('li', null, `recompile ${rc.compile_id}: ${rc.reason}`));
      }
      if (t.error) {
        details.appendChild(
          h(
            'li',
            { class: 'nbc-error' },
            `${t.error.type || 'error'} at ` +
              `${whereText(t.error.filename, t.error.lineno, t.cell, t.error.stack)}: `,
            h('code', null, t.error.line.trim()),
            ` — ${t.error.message}`
          )
        );
      }
      if (details.childElementCount) {
        this.node.appendChild(details);
      }
    }
  }

  private _mimeType: string;
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  createRenderer: options => new InlineSummary(options)
};

const extension: IRenderMime.IExtension = {
  id: 'nbcompile-labextension:inline-summary',
  description: 'Renders nbcompile records inline as a compact summary.',
  rendererFactory,
  // Before text/html (rank 50 by default): the record is the richer view.
  rank: 10,
  dataType: 'json'
};

export default extension;
