/**
 * A compile's CUDA-graph outcome, read and worded.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cudagraphText } from './cudagraphtext';

import { fixture, summary } from '../../test/support';

test('a compile CUDA-graph outcome is read and worded (skipped, not used, none)', () => {
  const raw = fixture() as {
    targets: { compiles: Record<string, unknown>[] }[];
  };
  const compiles = raw.targets[0].compiles;
  compiles[0].cudagraphs = {
    status: 'skipped',
    reason: 'mutated inputs (1 instances)',
    line: { filename: '<ipython-input-5-ab>', lineno: 3, line: 'x.add_(1)' },
    cell: 5,
    messages: ['skipping cudagraphs due to mutated inputs (1 instances)']
  };
  if (compiles.length > 1) {
    compiles[1].cudagraphs = { status: 'not_used', reason: 'cpu device' };
  }
  const parsed = summary(raw).targets[0].compiles;
  assert.equal(
    cudagraphText(parsed[0].cudagraphs),
    'skipped: mutated inputs (1 instances) (cell [5] line 3: x.add_(1))'
  );
  if (parsed.length > 1) {
    assert.equal(cudagraphText(parsed[1].cudagraphs), 'not used: cpu device');
  }
  assert.equal(cudagraphText(null), '');
});
