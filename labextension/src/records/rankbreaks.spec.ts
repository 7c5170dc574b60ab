/**
 * The notebook's graph breaks ranked.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { IProfilePayload } from '../model/profile';
import { parsePayload } from './intake';
import { rankBreaks } from './rankbreaks';

import { recordFixture, summary } from '../../test/support';

test('the notebook breaks: once each, most hit first, measured cost first when profiled', () => {
  const targets = summary().targets;
  const plain = rankBreaks(targets, []);
  assert.equal(plain.length, 1);
  assert.equal(plain[0].hits, 2); // compiles 0/0 and 0/1 both hit the print
  assert.deepEqual(plain[0].targets, ['gelu_chain']);
  assert.equal(plain[0].outside_graphs_s, null);
  // A second break, hit once, that a profile measured: it ranks first.
  const other = {
    ...targets[0].graph_breaks[0],
    lineno: 99,
    reason: 'another break'
  };
  const t2 = { ...targets[1], graph_breaks: [{ ...other, hits: 1 }] };
  const profile = parsePayload(recordFixture('profile')) as IProfilePayload;
  const measured = rankBreaks(
    [targets[0], t2],
    [{ ...profile, graph_breaks: [other], outside_graphs_s: 0.002 }]
  );
  assert.deepEqual(
    measured.map(r => [r.graph_break.lineno, r.hits, r.outside_graphs_s]),
    [
      [99, 1, 0.002],
      [5, 2, null]
    ]
  );
});
