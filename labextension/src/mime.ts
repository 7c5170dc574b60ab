/**
 * The renderer for `application/vnd.nbcompile.v1+json`, one of the places a record
 * enters (checked once by ./records/intake): the compact inline summary under a
 * `%%compile` cell (./views/inlinesummary), with a button that opens the Compile
 * inspector on a target; timing, trace, profile, suggestions and diagnosis records in
 * the same views the inspector uses. Text only (never HTML from the record); re-rendered on every
 * `update_display_data`. An inline inspector's static output (its metadata names a
 * saved view) is drawn as the inspector itself (./notebook/savedinspector), shown where
 * the inspector's widget did not come back. The plugin (./index) registers it with the
 * opener of its Compile inspector and the finder of a notebook's kernel.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Kernel } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

import { h } from './ui/dom';
import { clip, plural } from './ui/format';
import { MIME_TYPE, Payload } from './model/payload';
import { SavedInspector } from './notebook/savedinspector';
import { ISavedView, savedViewOf } from './notebook/savedview';
import { IIntake, startIntake } from './records/intake';
import { LIMITS } from './records/size';
import { PlainCode } from './ui/codesink';
import { renderCompileTime } from './views/compiletimeview';
import { renderDiagnosis } from './views/diagnoseview';
import { renderInlineSummary } from './views/inlinesummary';
import { renderProfile } from './views/profileview';
import { renderSuggestions } from './views/suggestview';
import { renderTiming } from './views/timingview';
import { renderTrace } from './views/traceview';

/** A record within these is checked, read and drawn at once (its size walk says so). */
const SMALL = { nodes: 20_000, bytes: 1_000_000 };

/** Open the inspector on a target; `origin` is the rendered output's node. */
export type InspectorOpener = (
  targetId: string | null,
  origin: HTMLElement,
  payload: Payload | null
) => void;

/** The running kernel of the notebook holding `origin` (a rendered output's node). */
export type KernelFinder = (
  origin: HTMLElement
) => Kernel.IKernelConnection | null;

export class InlineSummary extends Widget implements IRenderMime.IRenderer {
  constructor(
    options: IRenderMime.IRendererOptions,
    private readonly _open: InspectorOpener | null = null,
    private readonly _kernelOf: KernelFinder | null = null
  ) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('nbc-inline');
  }

  /**
   * A small record is drawn at once. A big one (its size walk passes `SMALL`) is
   * checked (the rest of the walk, then the schema), read and drawn in tasks of their
   * own after Lab's, so it never lengthens the task that creates the output and no one
   * step holds the page long; what was shown stays
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
    // An inline inspector's static output: the class its widget's stylesheet hides it by.
    const saved = savedViewOf(model.metadata);
    this.toggleClass('nbcompile-widget-fallback', saved !== null);
    // The record enters here: checked once (./records/intake), then typed.
    let intake: IIntake;
    try {
      intake = startIntake(data[this._mimeType], LIMITS, SMALL);
    } catch (err) {
      this._failed(err);
      return Promise.resolve();
    }
    if (intake.small) {
      try {
        this.node.replaceChildren();
        this._render(intake.check()(), data['text/plain'], saved);
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
      const checking = intake;
      later(() => {
        const read = checking.check();
        later(() => {
          const payload = read();
          later(() => {
            this.node.replaceChildren();
            this._render(payload, data['text/plain'], saved);
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

  dispose(): void {
    this._saved?.dispose();
    this._saved = null;
    super.dispose();
  }

  private _render(
    payload: Payload | null,
    plain: unknown,
    saved: ISavedView | null = null
  ): void {
    if (saved && payload && payload.record !== 'unknown') {
      if (!this._saved) {
        const finder = this._kernelOf;
        this._saved = new SavedInspector(saved, () =>
          finder ? finder(this.node) : null
        );
      }
      this.node.appendChild(this._saved.node);
      this._saved.show(payload);
      return;
    }
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
      default: {
        const open = this._open;
        this.node.appendChild(
          renderInlineSummary(
            payload,
            open ? id => open(id, this.node, payload) : null
          )
        );
      }
    }
  }

  private _note(reason: string): HTMLElement {
    return h(
      'div',
      { class: 'nbc-note nbc-invalid' },
      `nbcompile record not shown: ${clip(reason, 300)}.`
    );
  }

  private _mimeType: string;
  /** The inspector drawn from a saved output (the same one across updates). */
  private _saved: SavedInspector | null = null;
  /** Which call of renderModel is the latest (an older one's tasks do nothing). */
  private _run = 0;
}

/**
 * The renderer factory; `open` shows the Compile inspector on a target, `kernelOf`
 * finds the kernel a saved inspector asks.
 */
export function createRendererFactory(
  open: InspectorOpener | null,
  kernelOf: KernelFinder | null = null
): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [MIME_TYPE],
    createRenderer: options => new InlineSummary(options, open, kernelOf)
  };
}

/** Before text/html (rank 50 by default): the record is the richer view. */
export const RENDERER_RANK = 10;
