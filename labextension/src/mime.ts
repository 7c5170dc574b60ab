/**
 * The renderer for `application/vnd.nbcompile.v1+json`: the compact inline
 * summary under a `%%compile` cell, with a button that opens the Compile inspector on
 * a target; timing, trace, profile, suggestions and diagnosis records in the same views
 * the inspector uses. Text only (never HTML from the record); re-rendered on every
 * `update_display_data`. The plugin (./index) registers it with the opener of its
 * Compile inspector.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { button, Child, externalLink, h } from './ui/dom';
import {
  classSuffix,
  clip,
  countsText,
  formatSeconds,
  plural,
  statusText,
  whereText
} from './ui/format';
import { MIME_TYPE, Payload } from './model/payload';
import { ISummaryPayload, ITargetRecord } from './model/target';
import { checkPayload } from './records/parse';
import { checkLimits, LIMITS } from './records/validate';
import { phaseBar } from './views/phasebar';
import { PlainCode } from './ui/codesink';
import { renderCompileTime } from './views/compiletimeview';
import { renderDiagnosis } from './views/diagnoseview';
import { renderProfile } from './views/profileview';
import { renderSuggestions } from './views/suggestview';
import { renderTiming } from './views/timingview';
import { renderTrace } from './views/traceview';

/** Targets listed inline per output (the inspector lists them all). */
const MAX_ROWS = 50;
/** Detail lines (notes, breaks, recompiles) listed inline per target. */
const MAX_DETAILS = 10;
/** Longest text shown inline. */
const MAX_TEXT = 500;
/** A record within these is checked, read and drawn at once (a bounded walk says so). */
const SMALL = { ...LIMITS, nodes: 20_000, bytes: 1_000_000 };

/** Open the inspector on a target; `origin` is the rendered output's node. */
export type InspectorOpener = (
  targetId: string | null,
  origin: HTMLElement,
  payload: Payload | null
) => void;

export class InlineSummary extends Widget implements IRenderMime.IRenderer {
  constructor(
    options: IRenderMime.IRendererOptions,
    private readonly _open: InspectorOpener | null = null
  ) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('nbc-inline');
  }

  /**
   * A small record is drawn at once. A big one (more than `SMALL` allows) is checked,
   * read and drawn in tasks of their own after Lab's, so it never lengthens the task
   * that creates the output and no one step holds the page long; what was shown stays
   * until the new content replaces it (no flicker on `update_display_data`).
   */
  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const run = ++this._run;
    // An output model's JSON holds its data as is; `data` copies it on every read.
    const data = (
      typeof (model as { toJSON?: unknown }).toJSON === 'function'
        ? ((model as unknown as { toJSON(): { data?: unknown } }).toJSON()
            .data ?? model.data)
        : model.data
    ) as Record<string, unknown>;
    const value = data[this._mimeType];
    if (checkLimits(value, SMALL).ok) {
      try {
        this.node.replaceChildren();
        this._render(checkPayload(value)(), data['text/plain']);
      } catch (err) {
        this._failed(err);
      }
      return Promise.resolve();
    }
    return new Promise<void>(resolve => {
      // The next task, unless a newer model came meanwhile (then this run is over).
      const later = (fn: () => void) =>
        window.setTimeout(() => {
          if (run !== this._run || this.isDisposed) {
            resolve();
            return;
          }
          try {
            fn();
          } catch (err) {
            this._failed(err);
            resolve();
          }
        }, 0);
      later(() => {
        const read = checkPayload(value);
        later(() => {
          const payload = read();
          later(() => {
            this.node.replaceChildren();
            this._render(payload, data['text/plain']);
            resolve();
          });
        });
      });
    });
  }

  private _failed(err: unknown): void {
    // Never break the notebook: whatever went wrong, say so in place of this record.
    console.error('nbcompile: could not render a record', err);
    this.node.replaceChildren(this._note('it could not be rendered'));
  }

  private _render(payload: Payload | null, plain: unknown): void {
    if (!payload || payload.record === 'unknown') {
      this.node.appendChild(
        this._note(payload ? payload.reason : 'it is not a JSON object')
      );
      // The kernel's own plain-text fallback, capped.
      if (typeof plain === 'string') {
        this.node.appendChild(
          h('pre', { class: 'nbc-inline-plain' }, clip(plain, 2000))
        );
      }
      return;
    }
    const head = (title: string) =>
      this.node.appendChild(
        h(
          'div',
          { class: 'nbc-inline-head' },
          h('b', null, 'nbcompile'),
          ' · ',
          clip(title, 300)
        )
      );
    switch (payload.record) {
      case 'timing':
        head(payload.title);
        this.node.appendChild(renderTiming(payload));
        return;
      case 'trace':
        head(`trace of ${plural(payload.compiles.length, 'compile')}`);
        this.node.appendChild(renderTrace(payload, { code: new PlainCode() }));
        return;
      case 'profile':
        head(`profile of ${payload.name}`);
        this.node.appendChild(renderProfile(payload));
        return;
      case 'suggestions':
        head(`suggestions for ${payload.name}`);
        this.node.appendChild(renderSuggestions(payload));
        return;
      case 'diagnosis':
        head(`diagnosis of ${payload.name}`);
        this.node.appendChild(renderDiagnosis(payload));
        return;
      case 'compile_time':
        head(`compile time of ${payload.name}`);
        this.node.appendChild(renderCompileTime(payload));
        return;
      default:
        this._renderSummary(payload);
    }
  }

  private _note(reason: string): HTMLElement {
    return h(
      'div',
      { class: 'nbc-note nbc-invalid' },
      `nbcompile record not shown: ${clip(reason, 300)}.`
    );
  }

  private _renderSummary(p: ISummaryPayload): void {
    const head = h(
      'div',
      { class: 'nbc-inline-head' },
      h('b', null, 'nbcompile'),
      ' · ',
      p.targets.length
        ? plural(p.targets.length, 'target')
        : 'nothing to compile in this cell'
    );
    this.node.appendChild(head);
    const open = this._open;
    const now = Date.now() / 1000;
    for (const t of p.targets.slice(0, MAX_ROWS)) {
      const name = clip(t.name, 200);
      const row = h(
        'div',
        { class: 'nbc-inline-row', data: { targetId: t.id } },
        h('code', { class: 'nbc-target-name' }, name),
        h('span', { class: 'nbc-badge' }, clip(t.kind, 30)),
        h(
          'span',
          { class: `nbc-status nbc-status-${classSuffix(t.status)}` },
          clip(statusText(t, now), 50)
        ),
        h('span', { class: 'nbc-inline-counts' }, countsText(t))
      );
      if (open) {
        row.appendChild(
          button(
            'Inspect',
            () => open(t.id, this.node, p),
            'nbc-button nbc-small nbc-inspect',
            `Open the Compile inspector on ${name}`
          )
        );
      }
      this.node.appendChild(row);
      const lines: Child[][] = [];
      if (t.progress_text) {
        lines.push([`compiling: ${clip(t.progress_text, MAX_TEXT)}`]);
      }
      for (const note of t.notes.slice(0, MAX_DETAILS)) {
        lines.push([clip(note, MAX_TEXT)]);
      }
      for (const gb of t.graph_breaks.slice(0, MAX_DETAILS)) {
        lines.push([
          `graph break at ${clip(whereText(gb.filename, gb.lineno, t.cell, gb.stack), 300)}: `,
          h('code', null, clip(gb.line.trim(), 200)),
          ` — ${clip(gb.gb_type || gb.reason, MAX_TEXT)}`,
          gb.gb_id || gb.doc_url ? ' ' : null,
          gb.gb_id || gb.doc_url
            ? externalLink(gb.doc_url, clip(gb.gb_id || 'docs', 20))
            : null
        ]);
      }
      for (const rc of t.recompiles.slice(0, MAX_DETAILS)) {
        lines.push([
          `recompile ${clip(rc.compile_id, 50)}: ${clip(rc.reason, MAX_TEXT)}`
        ]);
      }
      const details = h('ul', { class: 'nbc-inline-details' });
      for (const line of lines.slice(0, MAX_DETAILS)) {
        details.appendChild(h('li', null, ...line));
      }
      const hidden =
        t.notes.length +
        t.graph_breaks.length +
        t.recompiles.length -
        details.childElementCount;
      if (hidden > 0) {
        details.appendChild(
          h(
            'li',
            { class: 'nbc-meta' },
            `${hidden} more (see the Compile inspector)`
          )
        );
      }
      if (t.error) {
        const err = t.error;
        details.appendChild(
          h(
            'li',
            { class: 'nbc-error' },
            `${clip(err.type, 100) || 'error'} at ` +
              `${clip(whereText(err.filename, err.lineno, t.cell, err.stack), 300)}: `,
            h('code', null, clip(err.line.trim(), 200)),
            ` — ${clip(err.message, MAX_TEXT)}`
          )
        );
      }
      if (details.childElementCount) {
        this.node.appendChild(details);
      }
      const phases = this._phases(t);
      if (phases) {
        this.node.appendChild(phases);
      }
    }
    if (p.targets.length > MAX_ROWS) {
      this.node.appendChild(
        h(
          'div',
          { class: 'nbc-meta' },
          `${p.targets.length - MAX_ROWS} more targets: the Compile inspector lists them all`
        )
      );
    }
  }

  /** Compile time by phase, a stacked bar per compile (folded; the first few). */
  private _phases(t: ITargetRecord): HTMLElement | null {
    const compiles = t.compiles.filter(c => c.phases.size);
    if (!compiles.length) {
      return null;
    }
    let scale = 0;
    for (const c of compiles) {
      let sum = 0;
      c.phases.forEach(s => (sum += s > 0 ? s : 0));
      scale = Math.max(scale, sum);
    }
    const table = h('table', { class: 'nbc-inline-phases-table' });
    for (const c of compiles.slice(0, MAX_DETAILS)) {
      table.appendChild(
        h(
          'tr',
          null,
          h('td', null, h('code', null, clip(c.compile_id, 30))),
          h('td', { class: 'nbc-phase-cell' }, phaseBar(c.phases, scale)),
          h(
            'td',
            { class: 'nbc-meta' },
            c.guard_latency_s !== null
              ? `guards ${formatSeconds(c.guard_latency_s)}/call`
              : ''
          )
        )
      );
    }
    const totals = new Map<string, number>();
    for (const c of compiles) {
      c.phases.forEach((s, name) =>
        totals.set(name, (totals.get(name) ?? 0) + (s > 0 ? s : 0))
      );
    }
    const legend = phaseBar(totals, 0, true).querySelector('.nbc-phase-legend');
    return h(
      'details',
      { class: 'nbc-inline-phases' },
      h(
        'summary',
        null,
        `compile time by phase (${plural(compiles.length, 'compile')})`
      ),
      table,
      compiles.length > MAX_DETAILS
        ? h(
            'div',
            { class: 'nbc-meta' },
            `${compiles.length - MAX_DETAILS} more in the Compile inspector`
          )
        : null,
      legend
    );
  }

  private _mimeType: string;
  /** Which call of renderModel is the latest (an older one's tasks do nothing). */
  private _run = 0;
}

/** The renderer factory; `open` shows the Compile inspector on a target. */
export function createRendererFactory(
  open: InspectorOpener | null
): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [MIME_TYPE],
    createRenderer: options => new InlineSummary(options, open)
  };
}

/** Before text/html (rank 50 by default): the record is the richer view. */
export const RENDERER_RANK = 10;
