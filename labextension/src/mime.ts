/**
 * Mime renderer extension for `application/vnd.nbcompile.v1+json`: the compact inline
 * summary under a `%%compile` cell, with a button that opens the Compile inspector on
 * a target. Text only (never HTML from the record); re-rendered on every
 * `update_display_data`.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { hasInspector, openInspector } from './bridge';
import { button, Child, h } from './dom';
import { classSuffix, clip, countsText, plural, statusText, whereText } from './format';
import { ISummaryPayload, MIME_TYPE } from './model';
import { parsePayload } from './parse';
import { renderTiming } from './timingview';

/** Targets listed inline per output (the inspector lists them all). */
const MAX_ROWS = 50;
/** Detail lines (notes, breaks, recompiles) listed inline per target. */
const MAX_DETAILS = 10;
/** Longest text shown inline. */
const MAX_TEXT = 500;

export class InlineSummary extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('nbc-inline');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.node.replaceChildren();
    try {
      this._render(model);
    } catch (err) {
      // Never break the notebook: whatever went wrong, say so in place of this record.
      console.error('nbcompile: could not render a record', err);
      this.node.replaceChildren(this._note('it could not be rendered'));
    }
    return Promise.resolve();
  }

  private _render(model: IRenderMime.IMimeModel): void {
    const payload = parsePayload(model.data[this._mimeType]);
    if (!payload || payload.record === 'unknown') {
      this.node.appendChild(this._note(payload ? payload.reason : 'it is not a JSON object'));
      // The kernel's own plain-text fallback, capped.
      const plain = model.data['text/plain'];
      if (typeof plain === 'string') {
        this.node.appendChild(h('pre', { class: 'nbc-inline-plain' }, clip(plain, 2000)));
      }
      return;
    }
    if (payload.record === 'timing') {
      this.node.appendChild(
        h('div', { class: 'nbc-inline-head' }, h('b', null, 'nbcompile'), ' · ', clip(payload.title, 200))
      );
      this.node.appendChild(renderTiming(payload));
      return;
    }
    this._renderSummary(payload);
  }

  private _note(reason: string): HTMLElement {
    return h('div', { class: 'nbc-note nbc-invalid' }, `nbcompile record not shown: ${clip(reason, 300)}.`);
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
    for (const t of p.targets.slice(0, MAX_ROWS)) {
      const name = clip(t.name, 200);
      const row = h(
        'div',
        { class: 'nbc-inline-row', data: { targetId: t.id } },
        h('code', { class: 'nbc-target-name' }, name),
        h('span', { class: 'nbc-badge' }, clip(t.kind, 30)),
        h('span', { class: `nbc-status nbc-status-${classSuffix(t.status)}` }, clip(statusText(t, now), 50)),
        h('span', { class: 'nbc-inline-counts' }, countsText(t))
      );
      if (canOpen) {
        row.appendChild(
          button(
            'Inspect',
            () => void openInspector(t.id, this.node, p),
            'nbc-button nbc-small nbc-inspect',
            `Open the Compile inspector on ${name}`
          )
        );
      }
      this.node.appendChild(row);
      const lines: Child[][] = [];
      for (const note of t.notes.slice(0, MAX_DETAILS)) {
        lines.push([clip(note, MAX_TEXT)]);
      }
      for (const gb of t.graph_breaks.slice(0, MAX_DETAILS)) {
        lines.push([
          `graph break at ${clip(whereText(gb.filename, gb.lineno, t.cell, gb.stack), 300)}: `,
          h('code', null, clip(gb.line.trim(), 200)),
          ` — ${clip(gb.gb_type || gb.reason, MAX_TEXT)}`
        ]);
      }
      for (const rc of t.recompiles.slice(0, MAX_DETAILS)) {
        lines.push([`recompile ${clip(rc.compile_id, 50)}: ${clip(rc.reason, MAX_TEXT)}`]);
      }
      const details = h('ul', { class: 'nbc-inline-details' });
      for (const line of lines.slice(0, MAX_DETAILS)) {
        details.appendChild(h('li', null, ...line));
      }
      const hidden = t.notes.length + t.graph_breaks.length + t.recompiles.length - details.childElementCount;
      if (hidden > 0) {
        details.appendChild(h('li', { class: 'nbc-meta' }, `${hidden} more (see the Compile inspector)`));
      }
      if (t.error) {
        const err = t.error;
        details.appendChild(
          h(
            'li',
            { class: 'nbc-error' },
            `${clip(err.type, 100) || 'error'} at ` + `${clip(whereText(err.filename, err.lineno, t.cell, err.stack), 300)}: `,
            h('code', null, clip(err.line.trim(), 200)),
            ` — ${clip(err.message, MAX_TEXT)}`
          )
        );
      }
      if (details.childElementCount) {
        this.node.appendChild(details);
      }
    }
    if (p.targets.length > MAX_ROWS) {
      this.node.appendChild(
        h('div', { class: 'nbc-meta' }, `${p.targets.length - MAX_ROWS} more targets: the Compile inspector lists them all`)
      );
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
