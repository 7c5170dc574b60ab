/**
 * Record intake from a notebook's saved outputs: every record in its code cells'
 * outputs, checked and read through ../records/intake in tasks of their own of about
 * `SLICE_MS` (each record's check and its reading are steps that are never split), so
 * a notebook of big records never holds the page in one long task.
 */

import { ICodeCellModel } from '@jupyterlab/cells';
import { INotebookModel } from '@jupyterlab/notebook';

import { Payload } from '../model/payload';
import { checkPayload, recordsInOutputs } from '../records/intake';

/** Time one task spends reading outputs before it yields. */
const SLICE_MS = 50;

/**
 * Read the records saved in `model`'s outputs, in document order, starting in a task
 * of its own (not the caller's: the notebook's own loading, or a kernel's restart, runs
 * there). `current()` false stops the reading (a newer one began, or the notebook went);
 * `done` gets the payloads once all are read.
 */
export function readSavedRecords(
  model: INotebookModel,
  current: () => boolean,
  done: (payloads: Payload[]) => void
): void {
  const payloads: Payload[] = [];
  // The work in steps: each record's check and its reading are steps of their own.
  function* steps(): Generator<void> {
    for (let i = 0; i < model.cells.length; i++) {
      const cell = model.cells.get(i);
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
    if (!current()) {
      return;
    }
    const start = performance.now();
    while (performance.now() - start < SLICE_MS) {
      if (work.next().done) {
        done(payloads);
        return;
      }
    }
    setTimeout(slice, 0);
  };
  setTimeout(slice, 0);
}
