/**
 * A compile's CUDA-graph outcome, read and worded.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  CUDAGRAPH_CALL_HEAD,
  cudagraphCallRow,
  cudagraphText
} from './cudagraphtext';

import { fixture, summary } from '../../test/support';

test('a compile CUDA-graph outcome shows the kernel words as they are', () => {
  const raw = fixture() as {
    targets: { compiles: Record<string, unknown>[] }[];
  };
  const compiles = raw.targets[0].compiles;
  const words =
    'recorded; graph partitions not known (served from the FX-graph cache)';
  compiles[0].cudagraphs = {
    status: 'recorded',
    partitions_unknown: 'served from the FX-graph cache',
    text: words
  };
  if (compiles.length > 1) {
    // a record saved before the words travelled: its status and torch's reason
    compiles[1].cudagraphs = { status: 'not_used', reason: 'cpu device' };
  }
  const parsed = summary(raw).targets[0].compiles;
  assert.equal(cudagraphText(parsed[0].cudagraphs), words);
  if (parsed.length > 1) {
    assert.equal(cudagraphText(parsed[1].cudagraphs), 'not used: cpu device');
  }
  assert.equal(cudagraphText(null), '');
});

test('calls under CUDA graphs are read and worded one row each', () => {
  const raw = fixture() as { targets: Record<string, unknown>[] };
  const warmed =
    "warmed up 1 graph (a graph's first run is eager, in the graph pool: a slow call)";
  raw.targets[0].cudagraph_calls = [
    {
      call: 1,
      cell: 4,
      warmups: 1,
      pool_before: 0,
      pool_after: 2097152,
      what: warmed
    },
    { call: 2, cell: 4, recordings: 1, new_shapes: [] },
    { call: 3, cell: 5, replays: 1, what: 'replayed 1 graph' },
    {
      call: 0,
      cell: 6,
      rerecords: [
        {
          compile_id: '0/0',
          reason: 'static input data pointer changed',
          inputs: ['primals_1'],
          line: 'return x @ self.w'
        }
      ],
      new_shapes: [{ compile_id: '0/0', key: '(48,)', cell: 6 }],
      fell_back: '',
      what: 'recorded again: static input data pointer changed (primals_1); new size (48,)'
    }
  ];
  const calls = summary(raw).targets[0].cudagraph_calls;
  assert.equal(calls.length, 4);
  assert.deepEqual(cudagraphCallRow(calls[0]), [
    '1',
    '[4]',
    '1',
    '0',
    '0',
    '0',
    '0 B',
    '2.0 MiB',
    warmed
  ]);
  // a record saved without the kernel's words shows none (the view words nothing itself)
  assert.equal(cudagraphCallRow(calls[1])[8], '');
  assert.deepEqual(cudagraphCallRow(calls[2]).slice(2, 5), ['0', '0', '1']);
  assert.equal(cudagraphCallRow(calls[2])[8], 'replayed 1 graph');
  const fourth = cudagraphCallRow(calls[3]);
  assert.equal(fourth[0], '');
  assert.equal(
    fourth[8],
    'recorded again: static input data pointer changed (primals_1); new size (48,)'
  );
  assert.equal(fourth.length, CUDAGRAPH_CALL_HEAD.length);
});

test('a record without calls under CUDA graphs reads as none', () => {
  const raw = fixture() as { targets: Record<string, unknown>[] };
  delete raw.targets[0].cudagraph_calls;
  assert.deepEqual(summary(raw).targets[0].cudagraph_calls, []);
});

test('a backward pass and the hazards are read as the kernel worded them', () => {
  const raw = fixture() as { targets: Record<string, unknown>[] };
  const what =
    'backward pass (after call 3, outside the call; its replays are not counted): recorded 1 graph (capture: a slow call)';
  raw.targets[0].cudagraph_calls = [
    { call: 3, cell: 7, recordings: 1, backward: true, what }
  ];
  raw.targets[0].cudagraph_hazards = [
    {
      kind: 'overwritten',
      cell: 9,
      names: [{ name: 'y1', bound_in: 8, by: 'g' }],
      text: 'the call of `g` in this cell (cell [9]) overwrote ...'
    }
  ];
  const t = summary(raw).targets[0];
  const row = cudagraphCallRow(t.cudagraph_calls[0]);
  assert.equal(row[4], ''); // replays outside the call are not counted: no zero
  assert.equal(row[8], what);
  assert.deepEqual(t.cudagraph_hazards, [
    {
      kind: 'overwritten',
      gradient: false,
      cell: 9,
      names: ['y1'],
      text: 'the call of `g` in this cell (cell [9]) overwrote ...'
    }
  ]);
  const bare = fixture() as { targets: Record<string, unknown>[] };
  delete bare.targets[0].cudagraph_hazards;
  assert.deepEqual(summary(bare).targets[0].cudagraph_hazards, []);
});
