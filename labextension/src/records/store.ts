/**
 * The records of one notebook: what the sidebar shows.
 *
 * Fed from two places: the notebook's saved outputs (on open, after a kernel
 * restart) and live IOPub messages, with payloads ./intake checked and read (typed:
 * the store checks nothing again). Targets are keyed by `id`; the latest record
 * wins. Every operation is O(size of the payload): targets live in a `Map` keyed by
 * their slot (cell id and name, so a re-run cell's new target takes its old place).
 * No JupyterLab imports beyond Lumino's signals, so node's test runner can use it.
 */

import { ISignal, Signal } from '@lumino/signaling';

import { IReportPayload, IUnknownPayload, Payload } from '../model/payload';
import { ITargetRecord } from '../model/target';
import { ITimingPayload } from '../model/timing';

/** Where a record came from: a live kernel message, or an output saved in the notebook. */
export type RecordSource = 'live' | 'saved';

export interface ITargetEntry {
  record: ITargetRecord;
  source: RecordSource;
  /** The payload's `updated_at` (kernel clock, seconds), when it had one. */
  updatedAt: number | null;
}

/** What changed in one emission: the target ids touched, and whether the rest did. */
export interface IStoreChange {
  /** Everything may have changed (rebuild, clear). */
  reset: boolean;
  /** Ids of targets added or updated. */
  targets: ReadonlySet<string>;
  /** Ids of targets that were replaced by a re-run cell's new target. */
  removed: ReadonlySet<string>;
  timings: boolean;
  /** Traces, profiles, suggestions, diagnoses or compile times were added. */
  reports: boolean;
  unknown: boolean;
}

export class RecordStore {
  /** Emitted after every change, with what changed. */
  get changed(): ISignal<this, IStoreChange> {
    return this._changed;
  }

  /**
   * Apply one payload. Live records always win (they arrive in order); a saved record
   * replaces an entry only if it is not older than it.
   */
  apply(payload: Payload, source: RecordSource): void {
    if (payload.record === 'summary') {
      for (const record of payload.targets) {
        this._applyTarget(record, source, payload.updated_at);
      }
    } else if (payload.record === 'timing') {
      this._timings.set(payload.key, payload);
      this._pending.timings = true;
    } else if (
      payload.record === 'trace' ||
      payload.record === 'profile' ||
      payload.record === 'suggestions' ||
      payload.record === 'diagnosis' ||
      payload.record === 'compile_time'
    ) {
      if (!this._reports.has(payload.key)) {
        this._reports.set(payload.key, payload);
        this._pending.reports = true;
      }
    } else if (!this._unknown.has(payload.key)) {
      this._unknown.set(payload.key, payload);
      this._pending.unknown = true;
    }
    this._flush();
  }

  /** Forget everything and read the given payloads (saved outputs), in document order. */
  rebuild(payloads: readonly Payload[]): void {
    this._silent = true;
    try {
      this._reset();
      for (const p of payloads) {
        this.apply(p, 'saved');
      }
    } finally {
      this._silent = false;
    }
    this._pending.reset = true;
    this._flush();
  }

  clear(): void {
    this._reset();
    this._pending.reset = true;
    this._flush();
  }

  /** Targets in the order they were first seen (a re-run keeps its place). */
  get targets(): ITargetEntry[] {
    return [...this._slots.values()];
  }

  get targetCount(): number {
    return this._slots.size;
  }

  get timings(): ITimingPayload[] {
    return [...this._timings.values()];
  }

  /** Traces, profiles, suggestions, diagnoses and compile times, in the order first seen. */
  get reports(): IReportPayload[] {
    return [...this._reports.values()];
  }

  get unknown(): IUnknownPayload[] {
    return [...this._unknown.values()];
  }

  get(id: string): ITargetEntry | undefined {
    const slot = this._slotOf.get(id);
    return slot === undefined ? undefined : this._slots.get(slot);
  }

  /** The most recently added target, if any. */
  get last(): ITargetEntry | undefined {
    let last: ITargetEntry | undefined;
    for (const e of this._slots.values()) {
      last = e;
    }
    return last;
  }

  get isEmpty(): boolean {
    return (
      !this._slots.size &&
      !this._timings.size &&
      !this._reports.size &&
      !this._unknown.size
    );
  }

  /** Changes so far (a cheap way to know whether to re-render). */
  get version(): number {
    return this._version;
  }

  private _applyTarget(
    record: ITargetRecord,
    source: RecordSource,
    updatedAt: number | null
  ): void {
    const existingSlot = this._slotOf.get(record.id);
    const existing =
      existingSlot === undefined ? undefined : this._slots.get(existingSlot);
    if (existing && source === 'saved') {
      if (existing.source === 'live') {
        return;
      }
      if (
        existing.updatedAt !== null &&
        updatedAt !== null &&
        updatedAt < existing.updatedAt
      ) {
        return;
      }
    }
    const entry: ITargetEntry = { record, source, updatedAt };
    // Re-running a `%%compile` cell makes new targets with new ids: the new target
    // takes the place (slot) of the old one with the same name from the same cell.
    const slot =
      existingSlot ??
      (record.cell.cell_id
        ? `cell\u0000${record.cell.cell_id}\u0000${record.name}`
        : `id\u0000${record.id}`);
    const previous = this._slots.get(slot);
    if (previous && previous.record.id !== record.id) {
      this._slotOf.delete(previous.record.id);
      this._pending.removed.add(previous.record.id);
    }
    this._slots.set(slot, entry);
    this._slotOf.set(record.id, slot);
    this._pending.targets.add(record.id);
  }

  private _reset(): void {
    this._slots.clear();
    this._slotOf.clear();
    this._timings.clear();
    this._reports.clear();
    this._unknown.clear();
  }

  private _flush(): void {
    const p = this._pending;
    if (
      this._silent ||
      (!p.reset &&
        !p.targets.size &&
        !p.removed.size &&
        !p.timings &&
        !p.reports &&
        !p.unknown)
    ) {
      return;
    }
    this._pending = RecordStore._empty();
    this._version++;
    this._changed.emit(p);
  }

  private static _empty(): IStoreChange & {
    targets: Set<string>;
    removed: Set<string>;
  } {
    return {
      reset: false,
      targets: new Set(),
      removed: new Set(),
      timings: false,
      reports: false,
      unknown: false
    };
  }

  private _slots = new Map<string, ITargetEntry>();
  private _slotOf = new Map<string, string>();
  private _timings = new Map<string, ITimingPayload>();
  private _reports = new Map<string, IReportPayload>();
  private _unknown = new Map<string, IUnknownPayload>();
  private _changed = new Signal<this, IStoreChange>(this);
  private _pending = RecordStore._empty();
  private _silent = false;
  private _version = 0;
}
