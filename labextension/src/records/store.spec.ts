/**
 * The store's rules: latest wins, live beats saved, re-runs replace by slot, reports
 * kept once, rebuild and clear.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FIELDS } from '../generated/fields';
import type { ICompileTimePayload } from '../model/compiletime';
import { parsePayload } from './intake';
import { IStoreChange, RecordStore } from './store';

import { fixture, recordFixture, summary } from '../../test/support';

test('store: targets keyed by id, latest wins, live beats saved, rebuild and clear', () => {
  const store = new RecordStore();
  let changes = 0;
  const seen: IStoreChange[] = [];
  store.changed.connect((_, change) => {
    changes++;
    seen.push(change);
  });
  const base = fixture() as {
    targets: Record<string, unknown>[];
    updated_at: number;
  };
  const p1 = summary(base);
  store.rebuild([p1]);
  assert.deepEqual(
    store.targets.map(e => e.record.name),
    ['gelu_chain', 'model']
  );
  assert.ok(store.targets.every(e => e.source === 'saved'));
  assert.equal(changes, 1);
  assert.equal(seen[0].reset, true);

  // A live update of one target: replaces it in place.
  const updated = structuredClone(base);
  updated.targets = [{ ...updated.targets[0], status: 'compiling' }];
  store.apply(summary(updated), 'live');
  assert.equal(store.get(p1.targets[0].id)?.record.status, 'compiling');
  assert.equal(store.get(p1.targets[0].id)?.source, 'live');
  assert.deepEqual([...seen[seen.length - 1].targets], [p1.targets[0].id]);
  assert.equal(seen[seen.length - 1].reset, false);
  assert.deepEqual(
    store.targets.map(e => e.record.name),
    ['gelu_chain', 'model']
  );

  // A saved record never overrides a live one.
  store.apply(p1, 'saved');
  assert.equal(store.get(p1.targets[0].id)?.record.status, 'compiling');

  // Saved records: newer updated_at wins, older does not.
  const s = new RecordStore();
  const newer = structuredClone(base);
  newer.updated_at = 20;
  newer.targets[0].status = 'failed';
  const older = structuredClone(base);
  older.updated_at = 10;
  s.rebuild([summary(newer), summary(older)]);
  assert.equal(s.targets[0].record.status, 'failed');

  // Re-running the %%compile cell: a new id for the same name in the same cell replaces it.
  const rerun = structuredClone(base);
  rerun.targets = [{ ...rerun.targets[0], id: 'new-id', status: 'pending' }];
  store.apply(summary(rerun), 'live');
  assert.deepEqual(
    store.targets.map(e => e.record.id),
    ['new-id', p1.targets[1].id]
  );
  assert.deepEqual([...seen[seen.length - 1].removed], [p1.targets[0].id]);
  assert.equal(store.get(p1.targets[0].id), undefined);
  assert.equal(store.get('new-id')?.record.status, 'pending');

  // Unknown kinds are counted once.
  store.apply(parsePayload({ record: 'memory', schema_version: 1 })!, 'live');
  store.apply(parsePayload({ record: 'memory', schema_version: 1 })!, 'live');
  assert.equal(store.unknown.length, 1);

  store.clear();
  assert.ok(store.isEmpty);
});

test('store: 10,000 targets in one payload keep their order; re-runs replace by slot', () => {
  const raw = fixture() as { targets: Record<string, unknown>[] };
  const base: Record<string, unknown> = {
    ...raw.targets[0],
    compiles: [],
    kernels: [],
    graph_breaks: [],
    recompiles: [],
    output_code: '',
    annotations: [],
    code_diffs: []
  };
  delete base.cell_names; // left out as the lists are: each target stays small
  // Fields at their default are left out too, as an older record leaves them (the
  // reader fills them in): the record grows a field at a time, the targets stay small.
  const defaults = FIELDS.TargetRecord.defaults as Record<string, unknown>;
  for (const [key, value] of Object.entries(defaults)) {
    if (JSON.stringify(base[key]) === JSON.stringify(value)) {
      delete base[key];
    }
  }
  const cell = base.cell as Record<string, unknown>;
  const targets = Array.from({ length: 20000 }, (_, i) => ({
    ...base,
    id: `t${i}`,
    name: `f${i}`,
    cell: { ...cell, cell_id: `cell${i % 100}` }
  }));
  // 20,000 of them are more than the kernel publishes at its largest output budget.
  const over = parsePayload({ ...raw, targets }) as {
    record: string;
    reason: string;
  };
  assert.equal(over.record, 'unknown');
  assert.match(
    over.reason,
    /larger than 8 MB, the largest record nbcompile publishes/
  );
  targets.length = 10000;
  const store = new RecordStore();
  store.rebuild([summary({ ...raw, targets })]);
  assert.equal(store.targetCount, 10000);
  assert.equal(store.last?.record.id, 't9999');
  // Re-run: every target gets a new id and takes its old place.
  store.apply(
    summary({ ...raw, targets: targets.map(t => ({ ...t, id: `n${t.id}` })) }),
    'live'
  );
  assert.equal(store.targetCount, 10000);
  assert.equal(store.targets[0].record.id, 'nt0');
  assert.equal(store.get('t5'), undefined);
});

test('store: reports (compile times too) are kept once each, in order, and cleared by a rebuild', () => {
  const store = new RecordStore();
  const changes: IStoreChange[] = [];
  store.changed.connect((_, c) => changes.push(c));
  for (const name of [
    'trace',
    'profile',
    'suggestions',
    'diagnosis',
    'compile_time',
    'trace',
    'compile_time'
  ]) {
    store.apply(parsePayload(recordFixture(name))!, 'live');
  }
  assert.deepEqual(
    store.reports.map(r => r.record),
    ['trace', 'profile', 'suggestions', 'diagnosis', 'compile_time']
  );
  assert.equal(changes.filter(c => c.reports).length, 5);
  // The same record saved in the notebook (a reload) is not a second section; another
  // measurement (other numbers) is one of its own.
  store.apply(parsePayload(recordFixture('compile_time'))!, 'saved');
  const again = { ...recordFixture('compile_time'), elapsed_s: 1234.5 };
  store.apply(parsePayload(again)!, 'live');
  const times = store.reports.filter(
    (r): r is ICompileTimePayload => r.record === 'compile_time'
  );
  assert.deepEqual(
    times.map(r => r.elapsed_s),
    [recordFixture('compile_time').elapsed_s, 1234.5]
  );
  assert.equal(store.reports.length, 6);
  assert.equal(store.isEmpty, false);
  store.rebuild([]);
  assert.equal(store.reports.length, 0);
  assert.equal(store.isEmpty, true);
});
