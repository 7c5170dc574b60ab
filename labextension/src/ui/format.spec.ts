/**
 * The words of a target: its options and status; prototype keys and odd values stay
 * plain data.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  cellMentions,
  countsText,
  editorMimeType,
  languageLabel,
  nameCells,
  optionsText,
  placeText,
  statusText
} from './format';

import { fixture, summary } from '../../test/support';

test('options and status read as words', () => {
  const [gelu] = summary().targets;
  assert.equal(optionsText(gelu.options), 'mode=default');
  assert.equal(statusText(gelu), 'compiled');
  const compiling = { ...gelu, status: 'compiling', compiling_since: 100 };
  assert.equal(statusText(compiling, 112.4), 'compiling… 12s');
  // The words are the kernel's (status_text); a record saved without them reads its status.
  assert.equal(
    statusText({
      ...gelu,
      status: 'pending',
      status_text: 'waiting for first call'
    }),
    'waiting for first call'
  );
  assert.equal(
    statusText({ ...gelu, status: 'not_compiled', status_text: '' }),
    'not compiled'
  );
});

test('prototype keys and odd values are plain data, never lookups', () => {
  const raw = fixture() as { targets: Record<string, unknown>[] };
  const t0 = raw.targets[0] as Record<string, any>;
  t0.name = 'constructor';
  t0.options = JSON.parse(
    '{"__proto__": {"polluted": 1}, "constructor": "c", "options": {"toString": 1}}'
  );
  t0.graph_breaks[0].lineno = 2;
  t0.compiles[0].times = JSON.parse('{"__proto__": 5, "total_s": 1}');
  t0.compiles[0].cache = JSON.parse('{"hasOwnProperty": 1}');
  const t = summary(raw).targets[0];
  assert.equal(languageLabel('toString'), 'toString');
  assert.equal(editorMimeType('toString'), 'text/plain');
  assert.equal(
    statusText({ ...t, status: 'toString', status_text: '' }),
    'toString'
  );
  assert.equal(t.compiles[0].times.get('total_s'), 1);
  assert.equal(t.compiles[0].times.get('__proto__'), 5);
  assert.equal(t.compiles[0].cache.get('hasOwnProperty'), 1);
  assert.match(optionsText(t.options), /constructor=c/);
  assert.match(optionsText(t.options), /__proto__=/);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.match(countsText(t), /kernels/);
});

test("torch's text names the cells the record names, as the kernel words them", () => {
  const names = new Map([['/tmp/ipykernel_7/123.py', 'cell [2]']]);
  const graph =
    '# File: /tmp/ipykernel_7/123.py:4 in gelu_chain, code: y = torch.sin(x) * 2\n' +
    '  File "/tmp/ipykernel_7/123.py", line 5, in gelu_chain\n' +
    'from /tmp/ipykernel_7/123.py and /tmp/ipykernel_8/9.py:3';
  assert.equal(
    nameCells(graph, names),
    '# File: cell [2], line 4 in gelu_chain, code: y = torch.sin(x) * 2\n' +
      '  cell [2], line 5, in gelu_chain\n' +
      'from cell [2] and /tmp/ipykernel_8/9.py:3'
  );
  assert.equal(nameCells('no cell here', names), 'no cell here');
  assert.equal(
    placeText('/tmp/ipykernel_7/123.py', 11, names),
    'cell [2], line 11'
  );
  assert.equal(
    placeText('/x/torch/nn/modules/module.py', 9, names),
    'nn/modules/module.py:9'
  );
});

test("a recompile's words keep their text; each cell they name is cut out for a link", () => {
  const text =
    "tensor 'x' dtype mismatch — cell [7] set SCALE = 0.5; the call in cell [9] " +
    'recompiled';
  const parts = cellMentions(text);
  assert.deepEqual(parts, [
    "tensor 'x' dtype mismatch — ",
    7,
    ' set SCALE = 0.5; the call in ',
    9,
    ' recompiled'
  ]);
  // laid out again (each number as `cell [n]`), the words are the record's, unchanged
  assert.equal(
    parts.map(p => (typeof p === 'number' ? `cell [${p}]` : p)).join(''),
    text
  );
  assert.deepEqual(cellMentions('no cell named'), ['no cell named']);
  assert.deepEqual(cellMentions('cell [3]'), [3]);
});
