/**
 * The search over a target's code pieces: every piece holding the query in its name or
 * code, on the lines a one-text search lights up. Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { findPieces, lineOf } from './findlines';

const PIECES = [
  {
    name: 'cpp_fused_mul_sin_0',
    source: 'extern "C" void kernel()\n{\n  out = std::sin(x) * 2;\n}'
  },
  {
    name: 'cpp_fused_add_relu_0',
    source: 'extern "C" void kernel()\n{\n  out = std::max(x, 0);\n}'
  },
  {
    name: 'call',
    source:
      'def call(args):\n    cpp_fused_add_relu_0(buf0)\n    return (buf0,)'
  }
];

test('every piece holding the query, in its name or on its lines, any case', () => {
  assert.deepEqual(findPieces(PIECES, 'relu'), [
    { index: 1, inName: true, lines: [], count: 0 },
    { index: 2, inName: false, lines: [2], count: 1 }
  ]);
  assert.deepEqual(findPieces(PIECES, 'SIN'), [
    { index: 0, inName: true, lines: [3], count: 1 }
  ]);
  assert.deepEqual(findPieces(PIECES, 'kernel'), [
    { index: 0, inName: false, lines: [1], count: 1 },
    { index: 1, inName: false, lines: [1], count: 1 }
  ]);
});

test('nothing for an empty query, a missing one, or one across lines', () => {
  assert.deepEqual(findPieces(PIECES, ''), []);
  assert.deepEqual(findPieces(PIECES, 'triton'), []);
  assert.deepEqual(findPieces(PIECES, '()\n{'), []);
});

test('lines past the cap are counted, not listed', () => {
  const source = Array.from({ length: 10 }, (_, i) => `x${i}`).join('\n');
  assert.deepEqual(findPieces([{ name: 'k', source }], 'x', 3), [
    { index: 0, inName: false, lines: [1, 2, 3], count: 10 }
  ]);
});

test('a line of a text by number', () => {
  assert.equal(lineOf(PIECES[1].source, 3), '  out = std::max(x, 0);');
  assert.equal(lineOf(PIECES[1].source, 1), 'extern "C" void kernel()');
  assert.equal(lineOf(PIECES[1].source, 99), '');
});
