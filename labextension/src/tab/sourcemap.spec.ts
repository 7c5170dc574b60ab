/**
 * The source map of the side-by-side tab.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { blockAt, buildSourceMap } from './sourcemap';

import { summary } from '../../test/support';

test('source map: kernels laid out one after another, tied to the source lines both ways', () => {
  const t = summary().targets[0]; // gelu_chain: y = sin(x) * 2; print; relu(y) + 1
  const map = buildSourceMap(t);
  assert.ok(map.blocks.length >= 2);
  const lines = map.text.split('\n');
  for (const b of map.blocks) {
    assert.match(
      lines[b.start - 1],
      new RegExp(`^// ---- ${t.kernels[b.kernel].name}`)
    );
    assert.ok(b.end >= b.start && b.end <= lines.length);
    assert.equal(blockAt(map, b.start)?.kernel, b.kernel);
    assert.equal(blockAt(map, b.end)?.kernel, b.kernel);
  }
  assert.equal(blockAt(map, map.blocks[0].end + 1), undefined); // the blank line between
  const sinRow = map.rows.find(r => r.line.includes('torch.sin'))!;
  assert.equal(sinRow.lineno, 4);
  assert.ok(sinRow.kernels.length >= 1);
  for (const k of sinRow.kernels) {
    assert.ok(map.kernelLines.get(k)!.includes(4));
    assert.notEqual(t.kernels[k].kind, 'wrapper');
  }
  assert.deepEqual(map.rows.find(r => r.line.includes('print'))!.kernels, []);
});
