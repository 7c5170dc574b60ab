/**
 * The comm: a published record cut to fit the output budget, or with long texts capped,
 * is asked for whole from the live kernel, every text whole, once per target. The kernel
 * answers on the comm target nbcompile registers when loaded
 * (nbcompile/magics/inspector_comm.py): one message `{data: {[MIME_TYPE]: record}}`,
 * which enters through ../records/intake within the inspector's own limits.
 */

import { Kernel } from '@jupyterlab/services';

import { Payload } from '../model/payload';
import { ITargetRecord } from '../model/target';
import { payloadFromCommReply } from '../records/intake';
import { LIMITS, WHOLE_LIMITS } from '../records/size';

/** The comm target nbcompile's kernel side registers (magics/inspector_comm.py). */
export const COMM_TARGET = 'nbcompile.inspector';

/** What the requests need from their notebook. */
export interface IWholeRecordHost {
  /** The live kernel to ask, if any (none: nothing is asked). */
  liveKernel(): Kernel.IKernelConnection | null;
  /** Whether the notebook is gone (a late answer is then dropped). */
  isDisposed(): boolean;
  /** Apply the whole record that came back. */
  apply(payload: Payload): void;
}

/** The targets asked for whole, once each until `forget` or `clear`. */
export class WholeRecordRequests {
  constructor(private readonly _host: IWholeRecordHost) {}

  /** Ask for `record` whole if its published copy was cut (once per target). */
  want(record: ITargetRecord): void {
    const kernel = this._host.liveKernel();
    const id = record.id;
    if (
      (!record.omitted.length && !record.truncated) ||
      !kernel ||
      this._asked.has(id) ||
      !/^[A-Za-z0-9_-]{1,40}$/.test(id)
    ) {
      return;
    }
    this._asked.add(id);
    // An older nbcompile (no such target) closes the comm at once: nothing to read.
    ask(kernel, { target_id: id }, WHOLE_LIMITS, payload => {
      if (!this._host.isDisposed()) {
        this._host.apply(payload);
      }
    });
  }

  /** A newer (possibly cut) record of `id` came: ask again if it is cut. */
  forget(id: string): void {
    this._asked.delete(id);
  }

  clear(): void {
    this._asked.clear();
  }

  private _asked = new Set<string>();
}

/**
 * Ask `kernel` for the record of every target it holds (a sidebar that (re)connects to a
 * running kernel, after a page reload): one reply per target, each handed to `apply`
 * within the published records' limits, until the kernel closes the comm. A kernel
 * without nbcompile loaded closes it at once.
 */
export function askHeld(
  kernel: Kernel.IKernelConnection,
  apply: (payload: Payload) => void
): void {
  ask(kernel, { held: true }, LIMITS, apply);
}

/**
 * Open the inspector's comm on `kernel` with `request`; each reply read within `limits`
 * is handed to `apply` until the kernel closes the comm.
 */
function ask(
  kernel: Kernel.IKernelConnection,
  request: { target_id: string } | { held: boolean },
  limits: typeof LIMITS,
  apply: (payload: Payload) => void
): void {
  let comm: Kernel.IComm;
  try {
    comm = kernel.createComm(COMM_TARGET);
  } catch {
    return;
  }
  comm.onMsg = msg => {
    const payload = payloadFromCommReply(msg.content.data, limits);
    if (payload) {
      apply(payload);
    }
  };
  void comm.open(request).done.catch(() => undefined);
}
