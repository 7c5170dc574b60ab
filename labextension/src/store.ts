/**
 * The records of one notebook: what the sidebar shows.
 *
 * Fed from two places: the notebook's saved outputs (on open, after a kernel
 * restart) and live IOPub messages. Targets are keyed by `id`; the latest record
 * wins. Plain TypeScript (no JupyterLab imports) so node's test runner can use it.
 */

import {
  ITargetRecord,
  ITimingPayload,
  IUnknownPayload,
  MIME_TYPE,
  Payload,
  parsePayload
} from './records';

/** Where a record came from: a live kernel message, or an output saved in the notebook. */
export type RecordSource = 'live' | 'saved';

export interface ITargetEntry {
  record: ITargetRecord;
  source: RecordSource;
  /** The payload's `updated_at` (kernel clock, seconds), when it had one. */
  updatedAt: number | null;
}

/** IOPub message types whose `content.data` can carry a record. */
const DATA_MESSAGES = new Set([
  'display_data',
  'update_display_data',
  'execute_result'
]);

/** The record payload of a kernel IOPub message, if it carries one. */
export function payloadFromMessage(msg: unknown): Payload | null {
  if (typeof msg !== 'object' || msg === null) {
    return null;
  }
  const m = msg as {
    header?: { msg_type?: unknown };
    content?: { data?: Record<string, unknown> };
  };
  const type = m.header?.msg_type;
  if (typeof type !== 'string' || !DATA_MESSAGES.has(type)) {
    return null;
  }
  const data = m.content?.data;
  if (!data || typeof data !== 'object' || !(MIME_TYPE in data)) {
    return null;
  }
  return parsePayload(data[MIME_TYPE]);
}

/** The record payloads found in a list of nbformat outputs, in order. */
export function payloadsFromOutputs(outputs: readonly unknown[]): Payload[] {
  const found: Payload[] = [];
  for (const output of outputs) {
    if (typeof output !== 'object' || output === null) {
      continue;
    }
    const o = output as { output_type?: unknown; data?: unknown };
    if (o.output_type !== 'display_data' && o.output_type !== 'execute_result') {
      continue;
    }
    const data = o.data as Record<string, unknown> | undefined;
    if (!data || typeof data !== 'object' || !(MIME_TYPE in data)) {
      continue;
    }
    const payload = parsePayload(data[MIME_TYPE]);
    if (payload) {
      found.push(payload);
    }
  }
  return found;
}

export class RecordStore {
  /**
   * Apply one payload. Live records always win (they arrive in order); a saved record
   * replaces an entry only if it is not older than it.
   */
  apply(payload: Payload, source: RecordSource): void {
    let changed = false;
    if (payload.record === 'summary') {
      for (const record of payload.targets) {
        changed = this._applyTarget(record, source, payload.updated_at) || changed;
      }
    } else if (payload.record === 'timing') {
      this._timings.set(payload.key, payload);
      changed = true;
    } else {
      if (!this._unknown.has(payload.key)) {
        this._unknown.set(payload.key, payload);
        changed = true;
      }
    }
    if (changed) {
      this._emit();
    }
  }

  /** Forget everything and read the given payloads (saved outputs), in document order. */
  rebuild(payloads: readonly Payload[]): void {
    this._silent = true;
    try {
      this._targets.clear();
      this._timings.clear();
      this._unknown.clear();
      for (const p of payloads) {
        this.apply(p, 'saved');
      }
    } finally {
      this._silent = false;
    }
    this._emit();
  }

  clear(): void {
    this._targets.clear();
    this._timings.clear();
    this._unknown.clear();
    this._emit();
  }

  /** Targets in the order they were first seen. */
  get targets(): ITargetEntry[] {
    return [...this._targets.values()];
  }

  get timings(): ITimingPayload[] {
    return [...this._timings.values()];
  }

  get unknown(): IUnknownPayload[] {
    return [...this._unknown.values()];
  }

  get(id: string): ITargetEntry | undefined {
    return this._targets.get(id);
  }

  get isEmpty(): boolean {
    return !this._targets.size && !this._timings.size && !this._unknown.size;
  }

  /** Changes so far (a cheap way to know whether to re-render). */
  get version(): number {
    return this._version;
  }

  /** Call `fn` after every change; returns the unsubscribe function. */
  subscribe(fn: () => void): () => void {
    this._listeners.add(fn);
    return () => this._listeners.delete(fn);
  }

  private _applyTarget(
    record: ITargetRecord,
    source: RecordSource,
    updatedAt: number | null
  ): boolean {
    const existing = this._targets.get(record.id);
    if (existing && source === 'saved') {
      if (existing.source === 'live') {
        return false;
      }
      if (
        existing.updatedAt !== null &&
        updatedAt !== null &&
        updatedAt < existing.updatedAt
      ) {
        return false;
      }
    }
    const entry: ITargetEntry = { record, source, updatedAt };
    if (existing) {
      this._targets.set(record.id, entry);
      return true;
    }
    // Re-running a `%%compile` cell makes new targets with new ids: the new target
    // takes the place of the old one with the same name from the same cell.
    const cellId = record.cell.cell_id;
    if (cellId) {
      const replaced = [...this._targets.entries()].find(
        ([id, e]) =>
          id !== record.id &&
          e.record.name === record.name &&
          e.record.cell.cell_id === cellId
      );
      if (replaced) {
        const rebuilt = new Map<string, ITargetEntry>();
        for (const [id, e] of this._targets) {
          if (id === replaced[0]) {
            rebuilt.set(record.id, entry);
          } else {
            rebuilt.set(id, e);
          }
        }
        this._targets = rebuilt;
        return true;
      }
    }
    this._targets.set(record.id, entry);
    return true;
  }

  private _emit(): void {
    if (this._silent) {
      return;
    }
    this._version++;
    for (const fn of [...this._listeners]) {
      try {
        fn();
      } catch (err) {
        console.error('nbcompile: store listener failed', err);
      }
    }
  }

  private _targets = new Map<string, ITargetEntry>();
  private _timings = new Map<string, ITimingPayload>();
  private _unknown = new Map<string, IUnknownPayload>();
  private _listeners = new Set<() => void>();
  private _silent = false;
  private _version = 0;
}
