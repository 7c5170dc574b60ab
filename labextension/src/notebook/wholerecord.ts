/**
 * The comm: a published record cut to fit the output budget, or with long texts capped,
 * is asked for whole from the live kernel, every text whole, once per target. The kernel
 * answers on the comm target nbcompile registers when loaded
 * (nbcompile/magics/inspector_comm.py): one message `{data: {[MIME_TYPE]: record}}`,
 * which enters through ../records/intake within the inspector's own limits. An inspector
 * drawn from a saved output asks the same comm for its targets again (`askAgain`).
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

/** A target a saved inspector shows, as a later kernel finds it (its cell and name). */
export interface ISavedTarget {
  name: string;
  cell_id: string | null;
}

/** What a saved inspector is told back: the records found, and the kernel's sentence. */
export interface IAgainAnswer {
  payloads: Payload[];
  /** The kernel's sentence; `null`: no answer (nbcompile not loaded, the comm refused). */
  text: string | null;
}

/**
 * Ask `kernel` for `targets` as it holds them now (a saved inspector's button): one
 * reply per target found, each read within the whole-record limits, then one with the
 * kernel's sentence; `done` is called once, when the kernel closes the comm (a kernel
 * without nbcompile loaded closes it at once: `text` is then `null`).
 */
export function askAgain(
  kernel: Kernel.IKernelConnection,
  targets: readonly ISavedTarget[],
  done: (answer: IAgainAnswer) => void
): void {
  const answer: IAgainAnswer = { payloads: [], text: null };
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done(answer);
    }
  };
  let comm: Kernel.IComm;
  try {
    comm = kernel.createComm(COMM_TARGET);
  } catch {
    finish();
    return;
  }
  comm.onMsg = msg => {
    const content = msg.content.data as { text?: unknown } | undefined;
    if (typeof content?.text === 'string') {
      answer.text = content.text;
      return;
    }
    const payload = payloadFromCommReply(msg.content.data, WHOLE_LIMITS);
    if (payload) {
      answer.payloads.push(payload);
    }
  };
  comm.onClose = () => finish();
  comm
    .open({ again: targets.map(t => ({ name: t.name, cell_id: t.cell_id })) })
    .done.catch(() => finish());
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
