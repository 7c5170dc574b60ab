/**
 * A timing record (`nbcompile.compare`) read into tables, charts and notes.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { parsePayload } from './intake';

import { TIMING_FIXTURE } from '../../test/support';

test('unknown record kinds are kept, not interpreted; timing becomes tables and a chart', () => {
  const u = parsePayload({ schema_version: 1, record: 'memory', whatever: 1 });
  assert.ok(u && u.record === 'unknown');
  assert.equal((u as { kind: string }).kind, 'memory');
  // The comparison record (nbcompile.compare): curated columns, speedup bars. The
  // fixture is Comparison.to_dict() of nbcompile/core/timing.py (see test/fixtures/README).
  const timing = parsePayload(JSON.parse(readFileSync(TIMING_FIXTURE, 'utf8')));
  assert.ok(timing && timing.record === 'timing');
  if (timing.record !== 'timing') {
    return;
  }
  assert.equal(timing.title, 'compare(f): x: f32[1024]');
  assert.equal(timing.tables[0].columns[0], 'mode');
  // the verdict with the interval it rests on, labelled: never an unlabelled spread
  assert.deepEqual(timing.tables[0].rows[1].slice(0, 4), [
    'default',
    '3.10 s',
    '500 µs ± 10.0 µs',
    '4.00× faster [95% CI 3.80–4.20×]'
  ]);
  assert.equal(timing.tables[0].rows[2][3], '0.07× slower [95% CI 0.04–0.15×]');
  assert.deepEqual(
    timing.chart.map(b => [b.label, b.value]),
    [
      ['default', 4.0],
      ['reduce-overhead', 0.07]
    ]
  );
  assert.ok(timing.notes.includes('default: warm cache'));
  assert.ok(timing.notes.includes('best: default'));
});

test('timing: memory next to time: peak with its verdict, allocated, chart, reasons', () => {
  const timing = parsePayload(JSON.parse(readFileSync(TIMING_FIXTURE, 'utf8')));
  assert.ok(timing && timing.record === 'timing');
  if (timing.record !== 'timing') {
    return;
  }
  const cols = timing.tables[0].columns;
  assert.deepEqual(cols.slice(5), ['peak memory/call', 'allocated/call']);
  assert.deepEqual(
    timing.tables[0].rows.map(r => r.slice(5)),
    [
      ['64.0 MiB', '176.0 MiB'],
      ["16.0 MiB (0.25x eager's peak)", '16.0 MiB'],
      ["80.0 MiB (1.25x eager's peak)", '80.0 MiB']
    ]
  );
  assert.deepEqual(
    timing.memoryChart.map(b => [b.label, b.value]),
    [
      ['eager', 64 * 2 ** 20],
      ['default', 16 * 2 ** 20],
      ['reduce-overhead', 80 * 2 ** 20]
    ]
  );
  assert.ok(
    timing.notes.some(n =>
      n.startsWith(
        'reduce-overhead, why more memory: reduce-overhead keeps held_bytes'
      )
    )
  );
  // what the command took and what came on top of the budget, first
  assert.equal(
    timing.notes[0],
    'took 9.5 s: timed calls 5.0 s (within the budget of 5 s); on top of the budget: first calls 3.3 s, memory 0.2 s, other 1.0 s'
  );
  // a training step adds the saved-for-backward column; an old record without memory still reads
  const raw = JSON.parse(readFileSync(TIMING_FIXTURE, 'utf8'));
  raw.rows[0].saved_bytes = 40 * 2 ** 20;
  const step = parsePayload(raw);
  assert.ok(
    step &&
      step.record === 'timing' &&
      step.tables[0].columns.at(-1) === 'saved for backward'
  );
  if (step.record === 'timing') {
    assert.equal(step.tables[0].rows[0].at(-1), '40.0 MiB');
    assert.equal(step.tables[0].rows[1].at(-1), '-');
  }
  for (const r of raw.rows) {
    for (const k of [
      'allocated_bytes',
      'peak_memory_ratio',
      'memory_verdict',
      'saved_bytes',
      'held_bytes',
      'memory_explanations'
    ]) {
      delete r[k];
    }
    r.peak_memory_bytes = null;
  }
  delete raw.phases_s;
  delete raw.memory_measured;
  // A changed record is a new object (./intake keeps one result per record object).
  const old = parsePayload(structuredClone(raw));
  assert.ok(old && old.record === 'timing', JSON.stringify(old));
  if (old.record === 'timing') {
    assert.deepEqual(old.memoryChart, []);
    assert.equal(old.tables[0].rows[1][5], 'not measured');
  }

  // Any other shape is not interpreted (no producer emits one): it says what is missing.
  const other = parsePayload({
    schema_version: 1,
    record: 'timing',
    title: 'g',
    results: [{ name: 'a', median_ms: 2 }]
  });
  assert.ok(other && other.record === 'unknown');
  assert.match(
    (other as { reason: string }).reason,
    /does not match the record schema: record lacks the field "name"/
  );
});
