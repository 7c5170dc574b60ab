/**
 * An inspector drawn from its saved output: where an inline inspector's widget did not
 * come back (a notebook saved without its widget state, reopened with a new kernel:
 * ipywidgets' "model not found"), its static output (the one after the widget's, which
 * carries the record and, in its metadata, the sentences of this view) is drawn by the
 * widget's own views (../widget/inspector) instead of its static report. Its button asks
 * the running kernel for the targets shown, by cell and name (../notebook/wholerecord:
 * `askAgain`), and shows them as the kernel holds them. Every sentence it shows is the
 * kernel's: saved in the output's metadata, or told by the kernel in its answer.
 *
 * It is drawn once its node is shown: where the widget runs, the stylesheet hides this
 * output (style/widget.css), and nothing is drawn twice.
 */

import { Kernel } from '@jupyterlab/services';

import { Payload } from '../model/payload';
import { h } from '../ui/dom';
import { InlineInspector } from '../widget/inspector';
import { ISavedView } from './savedview';
import { askAgain, ISavedTarget } from './wholerecord';

/** Where the view finds the notebook's running kernel (none: nothing to ask). */
export type CurrentKernel = () => Kernel.IKernelConnection | null;

export class SavedInspector {
  constructor(
    private readonly _view: ISavedView,
    private readonly _kernel: CurrentKernel
  ) {
    this._observer = new ResizeObserver(entries => {
      if (entries.some(e => e.contentRect.width > 0)) {
        this._draw();
      }
    });
    this._observer.observe(this.node);
  }

  readonly node = h('div', { class: 'nbc-saved' });

  /** The saved record to show (drawn now if the node is shown, else once it is). */
  show(payload: Payload): void {
    this._payload = payload;
    if (this._inspector) {
      this._inspector.show(payload);
      this._line(this._view.text);
    }
  }

  dispose(): void {
    this._observer.disconnect();
    this._inspector?.dispose();
    this._inspector = null;
  }

  private _draw(): void {
    if (this._inspector || !this._payload) {
      return;
    }
    this._observer.disconnect();
    const root = h('div');
    this.node.replaceChildren(root);
    // No whole record is asked by id: the ids are the saved kernel's.
    this._inspector = new InlineInspector(root, null, 'nbc-saved-view');
    this._inspector.show(this._payload);
    this._line(this._view.text);
  }

  private _line(text: string): void {
    const again = this._view.againLabel && this._targets().length;
    this._inspector?.setSnapshot(
      text,
      this._view.againLabel,
      again ? () => this._again() : null
    );
  }

  /** The targets of the saved record, as a later kernel finds them. */
  private _targets(): ISavedTarget[] {
    const p = this._payload;
    return p?.record === 'summary'
      ? p.targets.map(t => ({ name: t.name, cell_id: t.cell.cell_id ?? null }))
      : [];
  }

  private _again(): void {
    const kernel = this._kernel();
    const targets = this._targets();
    if (!kernel) {
      this._line(this._view.noAnswer);
      return;
    }
    askAgain(kernel, targets, answer => {
      const inspector = this._inspector;
      if (!inspector) {
        return;
      }
      const [first, ...rest] = answer.payloads;
      if (first) {
        inspector.show(first);
        rest.forEach(p => inspector.showWhole(p));
      }
      this._line(answer.text ?? this._view.noAnswer);
    });
  }

  private _observer: ResizeObserver;
  private _payload: Payload | null = null;
  private _inspector: InlineInspector | null = null;
}
