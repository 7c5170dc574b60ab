/**
 * Phase bars: the tail folded, one colour per phase.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { phaseColour, phaseSegments } from './phases';

test('phase bars fold the tail and give each phase one colour', () => {
  const phases = new Map<string, number>();
  for (let i = 0; i < 20; i++) {
    phases.set(`phase ${i}`, i + 1);
  }
  phases.set('zero', 0);
  const segs = phaseSegments(phases);
  assert.equal(segs.length, 12);
  assert.equal(segs[0][0], 'phase 19');
  assert.equal(segs[11][0], '9 other phases');
  assert.equal(segs[11][1], 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9);
  assert.equal(phaseColour('Dynamo tracing'), phaseColour('Dynamo tracing'));
});
