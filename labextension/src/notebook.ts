/**
 * One open notebook, watched for nbcompile records: saved outputs on open and after a
 * kernel restart, live IOPub messages in between.
 */

import { JupyterFrontEnd } from '@jupyterlab/application';
import { ISessionContext, Notification } from '@jupyterlab/apputils';
import { ICodeCellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { MIME_TYPE, Payload } from './model/payload';
import { ICellRef, ITargetRecord } from './model/target';
import { checkPayload, parsePayload } from './records/parse';
import { IInspectorSource } from './sidebar/section';
import {
  payloadFromMessage,
  recordsInOutputs,
  RecordStore
} from './records/store';
import { WHOLE_LIMITS } from './records/validate';

/** The comm target nbcompile's kernel side registers (magics/inspector_comm.py). */
export const COMM_TARGET = 'nbcompile.inspector';

/** Time one task of `rebuild` spends reading outputs before it yields. */
const REBUILD_SLICE_MS = 50;

export class NotebookWatcher implements IInspectorSource {
  constructor(panel: NotebookPanel, shell: JupyterFrontEnd.IShell) {
    this.panel = panel;
    this._shell = shell;
    const sc = panel.sessionContext;
    sc.iopubMessage.connect(this._onIopub, this);
    sc.statusChanged.connect(this._onStatus, this);
    sc.kernelChanged.connect(this._onKernelChanged, this);
    sc.connectionStatusChanged.connect(this._emitState, this);
    panel.title.changed.connect(this._emitState, this);
    void panel.context.ready.then(() => {
      if (!this._disposed) {
        this.rebuild();
      }
    });
  }

  readonly panel: NotebookPanel;
  readonly store = new RecordStore();

  get title(): string {
    return this.panel.title.label || this.panel.context.path;
  }

  get state(): string {
    const sc = this.panel.sessionContext;
    const kernel = sc.session?.kernel;
    if (!kernel) {
      return 'no kernel · from saved outputs';
    }
    const status = sc.kernelDisplayStatus;
    return this._sawLive
      ? `kernel ${status} · live`
      : `kernel ${status} · from saved outputs`;
  }

  get stateChanged(): ISignal<this, void> {
    return this._stateChanged;
  }

  /**
   * Forget everything and re-read the records saved in the notebook's outputs, in tasks
   * of their own of about `REBUILD_SLICE_MS` (each record's check and its reading are
   * steps that are never split), so a notebook of big records never holds the page in
   * one long task. Live records that arrive meanwhile are applied after the saved ones.
   */
  rebuild(): void {
    const model = this.panel.content.model;
    if (!model) {
      return;
    }
    const run = ++this._rebuildRun;
    this._sawLive = false;
    this._asked.clear();
    this._liveDuringRebuild = [];
    const payloads: Payload[] = [];
    // The work in steps: each record's check and its reading are steps of their own.
    function* steps(): Generator<void> {
      for (let i = 0; i < model!.cells.length; i++) {
        const cell = model!.cells.get(i);
        if (cell.type !== 'code') {
          continue;
        }
        for (const data of recordsInOutputs(
          (cell as ICodeCellModel).outputs.toJSON()
        )) {
          yield;
          const read = checkPayload(data);
          yield;
          const payload = read();
          if (payload) {
            payloads.push(payload);
          }
        }
      }
    }
    const work = steps();
    const slice = () => {
      if (this._disposed || run !== this._rebuildRun) {
        return;
      }
      const start = performance.now();
      while (performance.now() - start < REBUILD_SLICE_MS) {
        if (work.next().done) {
          const live = this._liveDuringRebuild;
          this._liveDuringRebuild = null;
          this.store.rebuild(payloads);
          for (const p of live ?? []) {
            this.store.apply(p, 'live');
          }
          this._emitState();
          return;
        }
      }
      window.setTimeout(slice, 0);
    };
    // Not in the caller's task: the notebook's own loading (or a kernel's restart) runs there.
    window.setTimeout(slice, 0);
  }

  cellLabel(ref: ICellRef): string | null {
    const index = this._findCell(ref);
    if (index < 0) {
      return null;
    }
    const model = this.panel.content.widgets[index].model;
    const count =
      model.type === 'code' ? (model as ICodeCellModel).executionCount : null;
    return count !== null ? `[${count}]` : `#${index + 1}`;
  }

  async reveal(ref: ICellRef, lineno: number | null): Promise<boolean> {
    const nb = this.panel.content;
    const index = this._findCell(ref);
    if (index < 0) {
      Notification.warning(
        'nbcompile: the cell that defined this target is no longer in the notebook.',
        { autoClose: 4000 }
      );
      return false;
    }
    this._shell.activateById(this.panel.id);
    nb.deselectAll();
    nb.activeCellIndex = index;
    nb.mode = 'command';
    const cell = nb.widgets[index];
    if (cell.inputHidden) {
      cell.inputHidden = false;
    }
    await nb.scrollToItem(index, 'smart');
    await cell.ready;
    const editor = cell.editor;
    if (lineno !== null && Number.isFinite(lineno) && editor) {
      const lines = cell.model.sharedModel.getSource().split('\n');
      // Record line numbers are untrusted: an integer index into the cell's lines.
      const line = Math.min(
        Math.max(0, Math.floor(lineno) - 1),
        lines.length - 1
      );
      editor.setSelection({
        start: { line, column: 0 },
        end: { line, column: lines[line].length }
      });
      editor.revealPosition({ line, column: 0 });
    }
    cell.node.classList.remove('nbc-flash');
    // Restart the animation.
    void cell.node.offsetWidth;
    cell.node.classList.add('nbc-flash');
    window.setTimeout(() => cell.node.classList.remove('nbc-flash'), 1600);
    return true;
  }

  /**
   * A published record cut to fit the output budget, or with long texts capped: ask the
   * live kernel for the whole record, every text whole, once per target. The kernel
   * answers on the comm target nbcompile registers when loaded
   * (nbcompile/magics/inspector_comm.py): one message `{data: {[MIME_TYPE]: record}}`.
   */
  wantWhole(record: ITargetRecord): void {
    const kernel = this.panel.sessionContext.session?.kernel;
    const id = record.id;
    if (
      (!record.omitted.length && !record.truncated) ||
      !kernel ||
      !this._sawLive ||
      this._asked.has(id) ||
      !/^[A-Za-z0-9_-]{1,40}$/.test(id)
    ) {
      return;
    }
    this._asked.add(id);
    let comm: Kernel.IComm;
    try {
      comm = kernel.createComm(COMM_TARGET);
    } catch {
      return;
    }
    comm.onMsg = msg => {
      const data = (
        msg.content.data as { data?: Record<string, unknown> } | undefined
      )?.data?.[MIME_TYPE];
      const payload =
        data === undefined || this._disposed
          ? null
          : parsePayload(data, WHOLE_LIMITS);
      if (payload) {
        this.store.apply(payload, 'live');
      }
    };
    // An older nbcompile (no such target) closes the comm at once: nothing to read.
    void comm.open({ target_id: id }).done.catch(() => undefined);
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    const sc = this.panel.sessionContext;
    sc.iopubMessage.disconnect(this._onIopub, this);
    sc.statusChanged.disconnect(this._onStatus, this);
    sc.kernelChanged.disconnect(this._onKernelChanged, this);
    sc.connectionStatusChanged.disconnect(this._emitState, this);
    this.panel.title.changed.disconnect(this._emitState, this);
    Signal.clearData(this);
  }

  /** The index of the cell a record points to: by cell id, else by prompt number. */
  private _findCell(ref: ICellRef): number {
    const cells = this.panel.content.widgets;
    let index = ref.cell_id
      ? cells.findIndex(c => c.model.id === ref.cell_id)
      : -1;
    if (index < 0 && ref.execution_count !== null) {
      // Older records or a frontend without cell ids: the prompt number.
      index = cells.findIndex(
        c =>
          c.model.type === 'code' &&
          (c.model as ICodeCellModel).executionCount === ref.execution_count
      );
    }
    return index;
  }

  private _onIopub(_: ISessionContext, msg: KernelMessage.IMessage): void {
    // Each kernel process signs its messages with its own session id: a new one means
    // the kernel was restarted, also by another client whose restart sent us nothing.
    const session =
      typeof msg.header?.session === 'string' ? msg.header.session : '';
    if (session && this._kernelSession && session !== this._kernelSession) {
      this._kernelSession = session;
      this.store.clear();
      this._sawLive = false;
      this._ranKernel = false;
      this.rebuild();
      this._emitState();
    }
    this._kernelSession = session || this._kernelSession;
    const payload = payloadFromMessage(msg);
    if (payload) {
      const first = !this._sawLive;
      this._sawLive = true;
      if (payload.record === 'summary') {
        for (const t of payload.targets) {
          this._asked.delete(t.id); // a newer (possibly cut) record: ask again if cut
        }
      }
      if (this._liveDuringRebuild) {
        this._liveDuringRebuild.push(payload);
      } else {
        this.store.apply(payload, 'live');
      }
      if (first) {
        this._emitState();
      }
    }
  }

  private _onStatus(_: ISessionContext, status: Kernel.Status): void {
    // A kernel restarted by another client (REST API, another front end) sends no
    // 'restarting' here: the new kernel's 'starting' after a running one says it.
    const restartedElsewhere = status === 'starting' && this._ranKernel;
    if (status === 'idle' || status === 'busy') {
      this._ranKernel = true;
    }
    if (
      status === 'restarting' ||
      status === 'autorestarting' ||
      restartedElsewhere
    ) {
      // The old kernel's targets are gone: clear now, refill from the outputs
      // (which may have been cleared too) once the new kernel is up.
      this._ranKernel = false;
      this.store.clear();
      this._sawLive = false;
      this._refillPending = true;
    } else if (status === 'idle' && this._refillPending) {
      this._refillPending = false;
      this.rebuild();
    }
    this._emitState();
  }

  private _onKernelChanged(
    _: ISessionContext,
    change: {
      oldValue: Kernel.IKernelConnection | null;
      newValue: Kernel.IKernelConnection | null;
    }
  ): void {
    this._kernelSession = '';
    if (
      change.oldValue &&
      change.newValue &&
      change.oldValue.id !== change.newValue.id
    ) {
      // Another kernel: its records start from what the outputs hold.
      this.rebuild();
    }
    this._emitState();
  }

  private _emitState(): void {
    this._stateChanged.emit();
  }

  private _shell: JupyterFrontEnd.IShell;
  private _stateChanged = new Signal<this, void>(this);
  private _refillPending = false;
  private _asked = new Set<string>();
  private _sawLive = false;
  /** The session id of the kernel process whose messages we read (see _onIopub). */
  private _kernelSession = '';
  /** The current kernel was seen running (idle or busy) since it started. */
  private _ranKernel = false;
  private _disposed = false;
  /** Which rebuild is the latest (an older one stops), and the live records that came
   * while it read the outputs (null when none is under way). */
  private _rebuildRun = 0;
  private _liveDuringRebuild: Payload[] | null = null;
}
