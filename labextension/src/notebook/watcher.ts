/**
 * One open notebook, watched for nbcompile records: saved outputs on open and after a
 * kernel restart (./saved), live IOPub messages in between (each checked once where it
 * enters, by ../records/intake), what a running kernel holds asked for once the outputs
 * are read (a page reloaded while it ran: ./wholerecord), cut records asked for whole
 * (./wholerecord), and the way back to a record's cell (./cells). This class keeps the kernel's state and hands
 * each job to its module.
 */

import { JupyterFrontEnd } from '@jupyterlab/application';
import { ISessionContext } from '@jupyterlab/apputils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { Payload } from '../model/payload';
import { ICellRef, ITargetRecord } from '../model/target';
import { payloadFromMessage } from '../records/intake';
import { RecordStore } from '../records/store';
import { IInspectorSource } from '../sidebar/section';
import { cellLabel, revealCell } from './cells';
import { readSavedRecords } from './saved';
import { askHeld, WholeRecordRequests } from './wholerecord';

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
   * Forget everything and re-read the records saved in the notebook's outputs (./saved:
   * in tasks of their own). Live records that arrive meanwhile are applied after the
   * saved ones.
   */
  rebuild(): void {
    const model = this.panel.content.model;
    if (!model) {
      return;
    }
    const run = ++this._rebuildRun;
    this._sawLive = false;
    this._whole.clear();
    this._liveDuringRebuild = [];
    readSavedRecords(
      model,
      () => !this._disposed && run === this._rebuildRun,
      payloads => {
        const live = this._liveDuringRebuild;
        this._liveDuringRebuild = null;
        this.store.rebuild(payloads);
        for (const p of live ?? []) {
          this.store.apply(p, 'live');
        }
        this._rebuilt = true;
        this._emitState();
        this._askHeld();
      }
    );
  }

  cellLabel(ref: ICellRef): string | null {
    return cellLabel(this.panel, ref);
  }

  reveal(ref: ICellRef, lineno: number | null): Promise<boolean> {
    return revealCell(this.panel, this._shell, ref, lineno);
  }

  /** The panel shows `record`: if its published copy was cut, ask the kernel for it whole. */
  wantWhole(record: ITargetRecord): void {
    this._whole.want(record);
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
      this._applyLive(payload);
    }
  }

  /** A record from the live kernel: applied after the saved ones. */
  private _applyLive(payload: Payload): void {
    const first = !this._sawLive;
    this._sawLive = true;
    if (payload.record === 'summary') {
      for (const t of payload.targets) {
        this._whole.forget(t.id); // a newer (possibly cut) record: ask again if cut
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

  /**
   * Ask the kernel, if one runs, for the records of every target it holds: after a page
   * reload the outputs hold only what was saved, the kernel holds them all.
   */
  private _askHeld(): void {
    const kernel = this.panel.sessionContext.session?.kernel;
    if (!kernel || this._disposed) {
      return;
    }
    askHeld(kernel, payload => {
      if (
        !this._disposed &&
        this.panel.sessionContext.session?.kernel === kernel
      ) {
        this._applyLive(payload);
      }
    });
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
    } else if (!change.oldValue && change.newValue && this._rebuilt) {
      // Connected once the outputs were read: what that kernel holds.
      this._askHeld();
    }
    this._emitState();
  }

  private _emitState(): void {
    this._stateChanged.emit();
  }

  private _shell: JupyterFrontEnd.IShell;
  private _stateChanged = new Signal<this, void>(this);
  private _refillPending = false;
  private _whole = new WholeRecordRequests({
    // Only a kernel seen live holds the targets of the records shown.
    liveKernel: () =>
      this._sawLive
        ? (this.panel.sessionContext.session?.kernel ?? null)
        : null,
    isDisposed: () => this._disposed,
    apply: payload => this.store.apply(payload, 'live')
  });
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
  /** The saved outputs were read once (a kernel connected later is asked then). */
  private _rebuilt = false;
}
