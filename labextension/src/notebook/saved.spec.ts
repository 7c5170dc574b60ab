/**
 * Record intake from saved outputs: every record of the code cells' outputs, in order,
 * each checked once; a newer reading stops an older one.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { INotebookModel } from '@jupyterlab/notebook';

import { MIME_TYPE, Payload } from '../model/payload';
import { checkCounts } from '../records/intake';
import { readSavedRecords } from './saved';

import { fixture, recordFixture } from '../../test/support';

/** The part of a notebook model the reader uses: cells and their outputs' JSON. */
function notebook(cells: { type: string; outputs: unknown[] }[]) {
  return {
    cells: {
      length: cells.length,
      get: (i: number) => ({
        type: cells[i].type,
        outputs: { toJSON: () => cells[i].outputs }
      })
    }
  } as unknown as INotebookModel;
}

function display(record: unknown) {
  return {
    output_type: 'display_data',
    data: { [MIME_TYPE]: record, 'text/plain': 'x' },
    metadata: {}
  };
}

function read(model: INotebookModel): Promise<Payload[]> {
  return new Promise(resolve => readSavedRecords(model, () => true, resolve));
}

test('saved records are read in document order, each checked once', async () => {
  const model = notebook([
    { type: 'code', outputs: [display(fixture())] },
    { type: 'markdown', outputs: [] },
    {
      type: 'code',
      outputs: [display(recordFixture('trace')), display({ record: 'x' })]
    }
  ]);
  const before = { ...checkCounts };
  const payloads = await read(model);
  assert.deepEqual(
    payloads.map(p => p.record),
    ['summary', 'trace', 'unknown']
  );
  // The third has no schema version: refused by its envelope, neither walked nor checked.
  assert.equal(checkCounts.size - before.size, 2);
  assert.equal(checkCounts.schema - before.schema, 2);
  // The same output objects read again (a kernel restart): nothing is checked again.
  const again = await read(model);
  assert.equal(again[0], payloads[0]);
  assert.equal(checkCounts.schema - before.schema, 2);
});

test('a reading no longer current stops and delivers nothing', async () => {
  const model = notebook([{ type: 'code', outputs: [display(fixture())] }]);
  let delivered = false;
  readSavedRecords(
    model,
    () => false,
    () => (delivered = true)
  );
  await new Promise(resolve => setTimeout(resolve, 20));
  assert.equal(delivered, false);
});
