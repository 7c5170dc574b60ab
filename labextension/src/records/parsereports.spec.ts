/**
 * The report records read into payloads: traces, profiles, suggestions and diagnoses
 * (fixtures from real runs, tests/fixtures/records/make_fixtures.py).
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { IDiagnosisPayload } from '../model/diagnosis';
import type { IProfilePayload } from '../model/profile';
import type { ISuggestionsPayload } from '../model/suggest';
import type { ITracePayload } from '../model/trace';
import { parsePayload } from './intake';
import {
  layerText,
  referenceText,
  rungCells,
  workaroundEffect
} from '../views/diagnosetext';
import { memoryFacts } from '../views/memorytext';
import { placeText } from '../ui/format';

import { recordFixture } from '../../test/support';

test('a trace record parses: compiles, recompile reason, phases, no ranks', () => {
  const p = parsePayload(recordFixture('trace'));
  assert.ok(p && p.record === 'trace', JSON.stringify(p));
  const t = p;
  assert.deepEqual(t.ranks, []);
  assert.deepEqual(
    t.compiles.map(c => [c.compile_id, c.status, c.rank]),
    [
      ['0/0', 'compiled', null],
      ['0/1', 'compiled', null]
    ]
  );
  assert.match(t.compiles[1].recompile_reason, /size mismatch at index 0/);
  assert.ok(t.compiles[0].phases.get('Dynamo tracing')! > 0);
  assert.ok(
    t.compiles[0].graphs.length === 1 &&
      t.compiles[0].graphs[0].includes('def forward')
  );
  assert.ok(t.compiles[0].guards.length > 100);
});

test('an interrupted trace is marked so (the kernel says why in problems[0])', () => {
  assert.equal(
    (parsePayload(recordFixture('trace')) as ITracePayload).interrupted,
    false
  );
  const raw = recordFixture('trace');
  raw.interrupted = true;
  raw.problems = [
    'interrupted (Ctrl-C) after 1 of 2 files, 3.0 MiB read: files not read: b.log'
  ];
  const t = parsePayload(raw) as ITracePayload;
  assert.equal(t.interrupted, true);
  assert.match(t.problems[0], /^interrupted \(Ctrl-C\)/);
});

test('a two-rank trace keeps ranks and divergences (groups of ranks)', () => {
  const raw = recordFixture('trace');
  const compiles = raw.compiles as Record<string, unknown>[];
  raw.ranks = [0, 1];
  raw.compiles = [
    { ...compiles[0], rank: 0 },
    { ...compiles[0], rank: 1 },
    { ...compiles[1], rank: 1 }
  ];
  raw.divergences = [
    {
      kind: 'compile_ids',
      groups: [[0], [1]],
      detail: 'rank 1 compiled 0/1',
      compile_id: '0/1'
    }
  ];
  const t = parsePayload(raw) as ITracePayload;
  assert.equal(t.record, 'trace');
  assert.deepEqual(t.ranks, [0, 1]);
  assert.deepEqual(t.divergences[0].groups, [[0], [1]]);
  assert.equal(t.divergences[0].compile_id, '0/1');
  assert.deepEqual(
    t.compiles.map(c => c.rank),
    [0, 1, 1]
  );
});

test('a profile record parses: kernels with launches and lines, per-line times, budget', () => {
  const p = parsePayload(recordFixture('profile')) as IProfilePayload;
  assert.equal(p.record, 'profile');
  assert.equal(p.name, 'scaled');
  assert.equal(p.repeat, 5);
  assert.ok(p.kernels.length >= 2);
  for (const k of p.kernels) {
    assert.match(k.name, /^cpp_fused_/);
    assert.equal(k.calls, 5);
    assert.ok(k.total_s > 0 && k.lines.length > 0);
  }
  const item = p.lines.find(l => l.line.includes('.item()'));
  assert.ok(item && item.lineno === 5);
  assert.ok(p.lines.some(l => l.compiled_s > 0 && l.eager_s > 0));
  assert.ok(p.wall_s > 0 && p.eager_wall_s > 0);
  assert.equal(p.graph_breaks[0].gb_id, 'GB0124');
  assert.match(p.graph_breaks[0].doc_url, /^https:\/\//);
});

test('a profile record carries memory: peaks, bytes per kernel and line, timelines', () => {
  const p = parsePayload(recordFixture('profile')) as IProfilePayload;
  const m = p.memory;
  assert.ok(m, 'the fixture profile measured memory');
  assert.equal(m.device, 'cpu');
  assert.ok(
    m.peak_bytes !== null &&
      m.peak_bytes > 0 &&
      m.eager_peak_bytes !== null &&
      m.eager_peak_bytes > 0
  );
  assert.ok(m.allocated_bytes !== null && m.allocated_bytes >= m.peak_bytes);
  assert.ok(m.timeline.length >= 2 && m.eager_timeline.length >= 2);
  assert.deepEqual(m.timeline[0], { t_s: 0, bytes: 0, what: 'start' });
  assert.equal(Math.max(...m.timeline.map(pt => pt.bytes)), m.peak_bytes);
  assert.ok(p.kernels.some(k => k.allocated_bytes > 0));
  assert.ok(p.lines.some(l => l.eager_allocated_bytes > 0));
  assert.match(
    memoryFacts(m)[0],
    /^peak .* compiled vs .* eager \(\d+\.\d\d×\)$/
  );
  // older profiles (no memory) and odd values read as "not measured" and zeros
  const raw = recordFixture('profile');
  delete raw.memory;
  assert.equal((parsePayload(raw) as IProfilePayload).memory, null);
  const odd = recordFixture('profile');
  (odd.kernels as Record<string, unknown>[])[0].allocated_bytes = -5;
  const q = parsePayload(odd);
  assert.ok(q && q.record === 'profile');
  if (q.record === 'profile') {
    assert.equal(q.kernels[0].allocated_bytes, 0);
  }
  // a timeline point of the wrong type fails the schema: the record is not shown, and says why
  const bad = recordFixture('profile');
  (bad.memory as Record<string, unknown>).timeline = [
    { t_s: 'x', bytes: 1, what: 'a' }
  ];
  const r = parsePayload(bad);
  assert.ok(r && r.record === 'unknown');
  assert.match((r as { reason: string }).reason, /t_s/);
});

test('a profile cut to the output budget carries its marks; a whole one has none', () => {
  assert.deepEqual(
    (parsePayload(recordFixture('profile')) as IProfilePayload).omitted,
    []
  );
  const raw = recordFixture('profile');
  raw.kernels = (raw.kernels as unknown[]).slice(0, 1);
  raw.truncated = true;
  raw.omitted = [
    { field: 'kernels', count: 3, how: 'p.kernels', unit: 'items' }
  ];
  const p = parsePayload(raw) as IProfilePayload;
  assert.equal(p.truncated, true);
  assert.deepEqual(p.omitted, [
    { field: 'kernels', count: 3, how: 'p.kernels', unit: 'items' }
  ]);
  assert.equal(p.kernels.length, 1);
});

test('a suggestions record parses: baseline, the change as code, verified, before/after, same result', () => {
  const s = parsePayload(recordFixture('suggestions')) as ISuggestionsPayload;
  assert.equal(s.record, 'suggestions');
  assert.equal(s.baseline.breaks, 1);
  assert.ok(s.items.length >= 1);
  const setting = s.items.find(i => i.kind === 'setting')!;
  assert.equal(
    setting.change,
    'torch._dynamo.config.capture_scalar_outputs = True'
  );
  assert.equal(setting.verified, true);
  assert.equal(setting.after?.breaks, 0);
  assert.equal(setting.same_result.ok, true);
  assert.equal(setting.problem.lineno, 5);
});

test('a diagnosis record parses: accuracy in Inductor, the ladder, the culprit line, float64, workarounds', () => {
  const p = parsePayload(recordFixture('diagnosis'));
  assert.ok(p && p.record === 'diagnosis', JSON.stringify(p));
  const d = p;
  assert.equal(d.name, 'squash');
  assert.equal(d.kind, 'accuracy');
  assert.equal(d.layer, 'inductor');
  assert.equal(layerText(d.layer), 'Inductor');
  assert.deepEqual(
    d.rungs.map(r => [r.backend, r.outcome]),
    [
      ['eager', 'ok'],
      ['aot_eager', 'ok'],
      ['aot_eager_decomp_partition', 'ok'],
      ['inductor', 'accuracy']
    ]
  );
  const top = d.rungs[3];
  assert.equal(rungCells(top)[4], `${top.mismatched} of 4096`);
  assert.ok((top.mismatched ?? 0) > 0 && d.mismatched === top.mismatched);
  assert.match(d.tolerance, /bfloat16 rtol=0\.016, atol=1e-05/);
  // the culprit: a lowering, tied to the cell line by its # File: comment
  assert.equal(d.bisection?.subsystem, 'lowerings');
  assert.match(d.culprit, /lowering of aten\./);
  assert.equal(d.lineno, 3);
  assert.equal(d.line, 'y = x * 1.7 + 0.3');
  // float64: compiled is the closer one
  assert.ok(d.reference);
  assert.equal(d.reference.closer, 'compiled');
  assert.ok(d.reference.compiled_error! < d.reference.eager_error!);
  assert.match(referenceText(d.reference), /compiled is closer/);
  const epc = d.workarounds.find(w =>
    w.change.includes('emulate_precision_casts')
  )!;
  assert.equal(epc.status, 'tried, did not help');
  assert.ok(
    epc.mismatched !== null &&
      epc.mismatched > 0 &&
      epc.mismatched < d.mismatched!
  );
  assert.match(
    workaroundEffect(epc, d.numel, d.mismatched),
    new RegExp(`out of tolerance ${d.mismatched} → ${epc.mismatched} of 4096`)
  );
  // the culprit line upcast: its error to float64 shown as the kernel measured it
  const up = d.workarounds.find(w => w.kind === 'upcast')!;
  assert.ok(
    up.reference_error !== null && up.reference_error < d.reference.eager_error!
  );
  assert.match(
    workaroundEffect(up, d.numel, d.mismatched),
    /max \|diff\| vs float64 0\.00\d+/
  );
  const random = d.workarounds.find(w => w.change.includes('fallback_random'))!;
  assert.equal(random.status, 'not tried');
  assert.equal(workaroundEffect(random, d.numel, d.mismatched), '');
  assert.ok(d.workarounds.some(w => w.kind === 'backend' && w.verified));
  assert.match(d.summary, /compiled is closer/);
});

test('a diagnosis with odd values parses to defaults; a crash keeps its error', () => {
  const raw = recordFixture('diagnosis');
  const odd = {
    ...raw,
    kind: 'crash',
    layer: null,
    error: 'CppCompileError: x',
    rungs: [{ backend: 7, outcome: null }],
    reference: 'x'
  };
  const verdict = parsePayload(odd);
  // the schema refuses a bad rung: shown as not readable, never thrown
  assert.ok(verdict && verdict.record === 'unknown');
  const crash = parsePayload({
    ...raw,
    kind: 'crash',
    layer: 'aot_autograd',
    reference: null,
    error: 'RuntimeError: bad grad'
  }) as IDiagnosisPayload;
  assert.equal(crash.kind, 'crash');
  assert.equal(crash.reference, null);
  assert.equal(crash.error, 'RuntimeError: bad grad');
  assert.equal(layerText(crash.layer), 'AOTAutograd');
});

test('a diagnosis with no float64 reference says so, with no verdict', () => {
  const raw = recordFixture('diagnosis') as {
    reference: Record<string, unknown>;
  };
  const none = parsePayload({
    ...raw,
    reference: {
      ...raw.reference,
      eager_error: null,
      compiled_error: null,
      eager_mean_error: null,
      compiled_mean_error: null,
      closer: 'unknown',
      note: 'no float64 reference: the call draws random numbers'
    }
  }) as IDiagnosisPayload;
  assert.equal(none.reference?.closer, 'unknown');
  const text = referenceText(none.reference);
  assert.match(text, /no float64 reference: the call draws random numbers/);
  assert.doesNotMatch(text, /closer/);
});

test('suggestions and a diagnosis carry the names of the cells they point into', () => {
  const file = '/tmp/ipykernel_41/2208.py';
  const names = { [file]: 'cell [3]' };
  const s = parsePayload({
    ...recordFixture('suggestions'),
    cell_names: names
  }) as ISuggestionsPayload;
  assert.equal(placeText(file, 4, s.cell_names), 'cell [3], line 4');
  const d = parsePayload({
    ...recordFixture('diagnosis'),
    cell_names: names
  }) as IDiagnosisPayload;
  assert.equal(placeText(file, 7, d.cell_names), 'cell [3], line 7');
  // a record saved before cells were named: none, the file's own path
  const saved = { ...recordFixture('suggestions') };
  delete saved.cell_names;
  const bare = parsePayload(saved) as ISuggestionsPayload;
  assert.equal(bare.cell_names.size, 0);
  // the fixture, recorded in a real shell, names its cell
  const recorded = parsePayload(
    recordFixture('suggestions')
  ) as ISuggestionsPayload;
  assert.deepEqual([...recorded.cell_names.values()], ['cell [1]']);
});
