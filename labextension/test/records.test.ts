/**
 * The TypeScript side of the record contract: parse the fixture the Python side
 * generated from a real compile (tests/fixtures/records/summary.json), and check the
 * store's rules (latest wins, saved vs live, unknown kinds, restart).
 *
 * Run: npm test (compiles with tsconfig.test.json, then node --test).
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  countsText,
  editorMimeType,
  isCellFile,
  languageLabel,
  optionsText,
  shortPath,
  statusText,
  whereText
} from '../src/ui/format';
import { ICompileTimePayload } from '../src/model/compiletime';
import { IDiagnosisPayload } from '../src/model/diagnosis';
import { MIME_TYPE, SCHEMA_VERSION } from '../src/model/payload';
import { IProfilePayload } from '../src/model/profile';
import { ISuggestionsPayload } from '../src/model/suggest';
import { ISummaryPayload } from '../src/model/target';
import { ITracePayload } from '../src/model/trace';
import { checkPayload, parsePayload } from '../src/records/parse';
import {
  checkLimits,
  LIMITS,
  validateRecord,
  WHOLE_LIMITS
} from '../src/records/validate';
import { RECORD_SCHEMA } from '../src/generated/schema';
import { memoryFacts } from '../src/views/memorytext';
import { compileTimeTitle } from '../src/views/compiletimetext';
import { safeUrl } from '../src/records/parseparts';
import { phaseColour, phaseSegments } from '../src/views/phases';
import {
  layerText,
  referenceText,
  rungCells,
  workaroundEffect
} from '../src/views/diagnosetext';
import { rankBreaks } from '../src/records/rankbreaks';
import { blockAt, buildSourceMap } from '../src/tab/sourcemap';
import {
  IStoreChange,
  payloadFromMessage,
  payloadsFromOutputs,
  RecordStore
} from '../src/records/store';

// test-lib/test/records.test.js -> repository root
const ROOT = join(__dirname, '..', '..', '..');
const FIXTURE = join(ROOT, 'tests', 'fixtures', 'records', 'summary.json');
const V1_SAVED = join(ROOT, 'tests', 'fixtures', 'records', 'v1-saved.json');
const TIMING_FIXTURE = join(
  ROOT,
  'labextension',
  'test',
  'fixtures',
  'timing.json'
);

function fixture(): unknown {
  return JSON.parse(readFileSync(FIXTURE, 'utf8'));
}

function summary(raw: unknown = fixture()): ISummaryPayload {
  const p = parsePayload(raw);
  assert.ok(p, 'fixture parses');
  assert.equal(p.record, 'summary');
  return p as ISummaryPayload;
}

test('the fixture is a v1 summary with both targets', () => {
  const raw = fixture() as Record<string, unknown>;
  assert.equal(raw.schema_version, SCHEMA_VERSION);
  const p = summary(raw);
  assert.deepEqual(
    p.targets.map(t => [t.name, t.kind]),
    [
      ['gelu_chain', 'function'],
      ['model', 'module']
    ]
  );
  for (const t of p.targets) {
    assert.ok(t.id, 'targets have ids');
    assert.equal(t.cell.cell_id, 'fixture-cell');
    assert.equal(t.cell.execution_count, 1);
    assert.ok(
      ['pending', 'compiling', 'compiled', 'failed', 'disabled'].includes(
        t.status
      )
    );
  }
});

test('every field the sidebar shows is read with its type', () => {
  const raw = fixture() as { targets: Record<string, unknown>[] };
  const p = summary(raw);
  p.targets.forEach((t, i) => {
    const r = raw.targets[i];
    assert.equal(t.graph_count, r.graph_count);
    assert.equal(t.graph_breaks.length, r.graph_break_count);
    assert.equal(t.recompiles.length, r.recompile_count);
    // kernel_count: kernels that run; code_piece_count: every piece (extern, wrapper too).
    assert.equal(t.generated_kernel_count, r.kernel_count);
    assert.equal(t.kernels.length, r.code_piece_count);
    assert.equal(t.compile_time_s, r.compile_time_s);
    assert.equal(t.output_code, r.output_code);
    assert.equal(t.compiles.length, (r.compiles as unknown[]).length);
    assert.equal(typeof t.truncated, 'boolean');
  });
});

test('the graph break carries reason, hint and the cell line (the %%compile line is line 1)', () => {
  const gelu = summary().targets[0];
  assert.equal(gelu.graph_breaks.length, 1);
  const gb = gelu.graph_breaks[0];
  assert.match(gb.reason, /print/);
  assert.match(gb.hint, /print/);
  assert.equal(gb.lineno, 5);
  // Untrusted text is kept verbatim (rendered with textContent, never as HTML).
  assert.equal(
    gb.line,
    'print("debug")          # a graph break <script>alert(1)</script>'
  );
  assert.equal(gb.compile_id, '0/0');
  assert.ok(
    isCellFile(gb.filename, gelu.cell),
    'a break in the cell is a cell line'
  );
  assert.ok(
    gb.stack.some(f => f.filename === gelu.cell.filename && f.lineno === 5)
  );
});

test('a break inside library code is named by its file, not as a cell line', () => {
  const cell = summary().targets[0].cell;
  const lib = '/venv/lib/python3.11/site-packages/torch/optim/optimizer.py';
  assert.equal(isCellFile(lib, cell), false);
  assert.equal(isCellFile('/tmp/ipykernel_123/456.py', cell), true);
  assert.equal(shortPath(lib, 79), 'torch/optim/optimizer.py:79');
  const stack = [
    { filename: cell.filename, lineno: 9, line: 'opt.step()' },
    { filename: lib, lineno: 79, line: 'torch._dynamo.graph_break()' }
  ];
  assert.equal(
    whereText(lib, 79, cell, stack),
    'torch/optim/optimizer.py:79 (reached from cell line 9)'
  );
  assert.equal(whereText(cell.filename, 5, cell, []), 'line 5');
});

test('recompiles come in order with their reasons and guards', () => {
  const gelu = summary().targets[0];
  assert.deepEqual(
    gelu.recompiles.map(r => r.compile_id),
    ['0/1', '1/1']
  );
  assert.match(gelu.recompiles[0].reason, /dtype mismatch/);
  assert.match(gelu.recompiles[0].guard, /expected Float, actual Double/);
});

test('kernels: names, languages, kinds and sizes', () => {
  const [gelu, model] = summary().targets;
  for (const t of [gelu, model]) {
    for (const k of t.kernels) {
      assert.ok(['cpp', 'triton', 'python'].includes(k.language), k.language);
      assert.ok(['kernel', 'extern', 'wrapper'].includes(k.kind), k.kind);
      assert.ok(k.size > 0);
      assert.ok(k.source.length > 0);
    }
  }
  const cpp = gelu.kernels.filter(k => k.kind === 'kernel');
  assert.equal(gelu.generated_kernel_count, cpp.length);
  assert.ok(cpp.length >= 2);
  assert.ok(
    cpp.every(k => k.language === 'cpp' && k.name.startsWith('cpp_fused'))
  );
  assert.match(cpp[0].source, /extern "C"/);
  assert.equal(editorMimeType('cpp'), 'text/x-c++src');
  assert.equal(editorMimeType('triton'), 'text/x-python');
  assert.ok(
    model.kernels.some(
      k => k.kind === 'extern' && k.name === 'extern_kernels.addmm'
    )
  );
  assert.ok(gelu.output_code.includes('cpp_fused_mul_sin_0'));
});

test('compiles carry FX graphs, guards, times and the resume frame', () => {
  const gelu = summary().targets[0];
  const frames = gelu.compiles.map(c => c.frame);
  assert.ok(frames.includes('gelu_chain'));
  assert.ok(
    frames.some(f => f.startsWith('torch_dynamo_resume_in_gelu_chain'))
  );
  for (const c of gelu.compiles) {
    assert.ok(c.graphs.length >= 1);
    assert.match(c.graphs[0], /class GraphModule/);
    assert.match(c.guards, /GuardManager|GUARD/);
    assert.ok((c.times.get('total_s') ?? 0) > 0);
  }
  assert.equal(
    gelu.compiles[2].recompile_reason,
    "tensor 'x' dtype mismatch. expected Float, actual Double"
  );
});

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

test("a running compile shows the kernel's words for its step; a finished one none", () => {
  const raw = fixture() as { targets: Record<string, unknown>[] };
  const words =
    'compiling 2 C++ kernels (1 of 2 done) for 3s · frame 0/0 gelu_chain (line 2)';
  raw.targets[0] = {
    ...raw.targets[0],
    status: 'compiling',
    compiling_since: 100,
    progress_text: words,
    progress: {
      compile_id: '0/0',
      frame: 'gelu_chain',
      filename: '<cell>',
      lineno: 2,
      phase: 'compiling kernels',
      elapsed_s: 9.5,
      phase_seconds: { 'tracing bytecode': 0.5, 'compiling kernels': 3 },
      kernels_total: 2,
      kernels_done: 1,
      kernel_language: 'C++'
    }
  };
  raw.targets[1] = { ...raw.targets[1], progress_text: 'stale words' };
  const [running, done] = summary(raw).targets;
  assert.equal(running.progress_text, words);
  assert.equal(statusText(running, 112.4), 'compiling… 12s');
  assert.equal(done.progress_text, '');
});

test('malformed, foreign and invalid payloads never throw; invalid ones say why', () => {
  assert.equal(parsePayload(null), null);
  assert.equal(parsePayload('not json'), null);
  assert.equal(parsePayload([1, 2]), null);
  const reason = (v: unknown) => {
    const p = parsePayload(v);
    assert.ok(p && p.record === 'unknown', JSON.stringify(p)?.slice(0, 200));
    return (p as { reason: string }).reason;
  };
  assert.match(
    reason({ record: 'summary', targets: [] }),
    /no valid schema_version/
  );
  assert.match(
    reason({ ...(fixture() as object), schema_version: 999 }),
    /schema version 999.*reads version 1/
  );
  const bad = fixture() as {
    targets: { kernels: { language: string }[]; graph_breaks: unknown }[];
  };
  bad.targets[0].kernels[0].language = 'toString';
  assert.match(
    reason(bad),
    /record\.targets\[0\]\.kernels\[0\]\.language must be one of "cpp", "triton", "python", not "toString"/
  );
  const wrongType = fixture() as { targets: { graph_breaks: unknown }[] };
  wrongType.targets[0].graph_breaks = 'x';
  assert.match(reason(wrongType), /graph_breaks must be array, not string/);
  const missing = fixture() as { targets: Record<string, unknown>[] };
  delete missing.targets[1].id;
  assert.match(reason(missing), /targets\[1\] lacks the field "id"/);
  // Size limits: deep values and huge key counts are refused before the schema is read.
  let deep: unknown = 'bottom';
  for (let i = 0; i < 5000; i++) {
    deep = { d: deep };
  }
  const nested = fixture() as { targets: Record<string, unknown>[] };
  nested.targets[0].options = { x: deep };
  assert.match(reason(nested), /nested deeper than 64 levels/);
  const wide = fixture() as { targets: Record<string, unknown>[] };
  wide.targets[0].options = Object.fromEntries(
    Array.from({ length: 20000 }, (_, i) => [`k${i}`, i])
  );
  assert.match(reason(wide), /more than 10000 keys/);
  // Unknown fields are ignored (consumers must ignore them), never rendered.
  const extra = fixture() as { targets: Record<string, unknown>[] };
  extra.targets[0].future_field = { anything: 1 };
  assert.equal(summary(extra).targets.length, 2);
  // A JSON string of the payload is accepted too.
  assert.equal(summary(JSON.stringify(fixture())).targets.length, 2);
});

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
  const old = parsePayload(raw);
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

test('payloads are found in saved outputs and in IOPub messages', () => {
  const payload = fixture();
  const outputs = [
    { output_type: 'stream', name: 'stdout', text: 'debug\n' },
    {
      output_type: 'display_data',
      data: { 'text/plain': 'x', [MIME_TYPE]: payload },
      metadata: {}
    },
    {
      output_type: 'execute_result',
      data: { 'text/plain': 'y' },
      metadata: {},
      execution_count: 2
    }
  ];
  const found = payloadsFromOutputs(outputs);
  assert.equal(found.length, 1);
  for (const msg_type of [
    'display_data',
    'update_display_data',
    'execute_result'
  ]) {
    const p = payloadFromMessage({
      header: { msg_type },
      content: {
        data: { [MIME_TYPE]: payload },
        transient: { display_id: 'd1' }
      }
    });
    assert.ok(p && p.record === 'summary', msg_type);
  }
  assert.equal(
    payloadFromMessage({
      header: { msg_type: 'stream' },
      content: { text: 'x' }
    }),
    null
  );
  assert.equal(
    payloadFromMessage({
      header: { msg_type: 'display_data' },
      content: { data: { 'text/plain': 'x' } }
    }),
    null
  );
});

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

test('record line numbers are integers for the jump to a cell line', () => {
  const p = parsePayload({ ...(fixture() as object) }) as ISummaryPayload;
  assert.equal(p.targets[0].graph_breaks[0].lineno, 5);
});

test('a v1 record saved in a notebook before the schema was generated still shows', () => {
  const p = summary(JSON.parse(readFileSync(V1_SAVED, 'utf8')));
  assert.ok(p.targets.length >= 1);
  assert.ok(p.targets.every(t => t.id && t.name));
});

// --- Reports: traces, profiles, suggestions, diagnoses (fixtures from real runs, make_fixtures.py) ---

function recordFixture(name: string): Record<string, unknown> {
  return JSON.parse(
    readFileSync(
      join(ROOT, 'tests', 'fixtures', 'records', `${name}.json`),
      'utf8'
    )
  );
}

test('a trace record parses: compiles, recompile reason, phases, no ranks', () => {
  const p = parsePayload(recordFixture('trace'));
  assert.ok(p && p.record === 'trace', JSON.stringify(p));
  const t = p as ITracePayload;
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
  assert.equal(setting.same.ok, true);
  assert.equal(setting.problem.lineno, 5);
});

test('a diagnosis record parses: accuracy in Inductor, the ladder, the culprit line, float64, workarounds', () => {
  const p = parsePayload(recordFixture('diagnosis'));
  assert.ok(p && p.record === 'diagnosis', JSON.stringify(p));
  const d = p as IDiagnosisPayload;
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
  const text = referenceText(none.reference!);
  assert.match(text, /no float64 reference: the call draws random numbers/);
  assert.doesNotMatch(text, /closer/);
});

test('links in records: only https URLs are kept', () => {
  assert.equal(
    safeUrl('https://meta-pytorch.github.io/x.html'),
    'https://meta-pytorch.github.io/x.html'
  );
  assert.equal(safeUrl('javascript:alert(1)'), '');
  assert.equal(safeUrl('http://example.com'), '');
  assert.equal(safeUrl('not a url'), '');
  const raw = recordFixture('profile');
  (raw.graph_breaks as Record<string, unknown>[])[0].doc_url =
    'javascript:alert(1)';
  const p = parsePayload(raw) as IProfilePayload;
  assert.equal(p.graph_breaks[0].doc_url, '');
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

test('compiles carry their phases, guard latency and breaks', () => {
  const t = summary().targets[0];
  assert.ok(t.compiles.some(c => c.phases.size > 0));
  assert.deepEqual(
    t.compiles.map(c => c.graph_breaks.length),
    [1, 0, 1, 0]
  );
  assert.equal(t.graph_breaks[0].gb_id.startsWith('GB'), true);
});

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

test("the size cap is the kernel's largest output budget; the inspector's whole record has its own", () => {
  const kernel = (RECORD_SCHEMA as Record<string, Record<string, number>>)[
    'x-nbcompile-limits'
  ];
  assert.equal(LIMITS.bytes, kernel.max_record_bytes);
  assert.equal(WHOLE_LIMITS.bytes, kernel.max_whole_record_bytes);
  const records = join(ROOT, 'tests', 'fixtures', 'records');
  // The count is a lower bound of the JSON's UTF-8 size: a record at the cap passes.
  for (const name of [
    'summary',
    'trace',
    'profile',
    'suggestions',
    'diagnosis'
  ]) {
    const rec = JSON.parse(readFileSync(join(records, `${name}.json`), 'utf8'));
    const size = Buffer.byteLength(JSON.stringify(rec));
    assert.ok(checkLimits(rec, { ...LIMITS, bytes: size }).ok, name);
    assert.ok(
      !checkLimits(rec, { ...LIMITS, bytes: Math.floor(size / 2) }).ok,
      name
    );
  }
  const trace = JSON.parse(readFileSync(join(records, 'trace.json'), 'utf8'));
  trace.problems = ['x'.repeat(LIMITS.bytes)];
  const over = parsePayload(trace) as { record: string; reason: string };
  assert.equal(over.record, 'unknown');
  assert.match(
    over.reason,
    /^it is larger than 8 MB, the largest record nbcompile publishes/
  );
  // From the inspector's request (the live kernel's whole record), it is read.
  assert.equal(parsePayload(trace, WHOLE_LIMITS)?.record, 'trace');
  // In two steps (the check, then the reading): the same payload.
  trace.problems = ['one'];
  assert.deepEqual(checkPayload(trace)(), parsePayload(trace));
});

test("validation is one step that types the record: its own kind's schema, finite numbers", () => {
  const v = validateRecord(recordFixture('trace'));
  assert.ok(v.ok && v.record.record === 'trace');
  // A trace record carrying a profile's fields is refused as a trace, not read as one.
  const profile = recordFixture('profile');
  const confused = validateRecord({ ...profile, record: 'trace' });
  assert.ok(!confused.ok);
  assert.match(confused.reason, /record lacks the field "path"/);
  // JSON has no Infinity, but 1e400 parses to it: refused, never shown.
  const huge = JSON.parse(
    JSON.stringify(recordFixture('profile')).replace(
      /"wall_s": ?[0-9.e-]+/,
      '"wall_s": 1e400'
    )
  );
  const inf = validateRecord(huge);
  assert.ok(!inf.ok);
  assert.match(inf.reason, /wall_s must be number, not non-finite number/);
  // The kind is named as the record gives it.
  assert.match(
    (parsePayload({ schema_version: 1, record: 7 }) as { reason: string })
      .reason,
    /kind "7" this version does not show/
  );
});

test('the limits the schema does not state are kept: lines, hits, ranks, bytes, timeline', () => {
  const raw = fixture() as { targets: Record<string, any>[] };
  const t0 = raw.targets[0];
  t0.graph_breaks[0].lineno = -2;
  t0.graph_breaks[0].hits = 0;
  t0.graph_breaks[0].stack = [{ filename: 'f', lineno: -3, line: 'x' }];
  t0.annotations = [
    {
      filename: 'f',
      lineno: 1,
      line: 'x',
      category: 'fused',
      kernels: [],
      externs: [],
      kernel_refs: [-1, 2, 3],
      ops: [],
      reason: ''
    }
  ];
  t0.id = '';
  raw.targets.push({ ...t0, id: 't-last' });
  const p = summary(raw);
  assert.deepEqual(
    p.targets.map(t => t.id),
    [raw.targets[1].id, 't-last']
  );
  const b = p.targets[1].graph_breaks[0];
  assert.equal(b.lineno, null);
  assert.equal(b.hits, 1);
  assert.equal(b.stack[0].lineno, null);
  assert.deepEqual(p.targets[1].annotations[0].kernel_refs, [2, 3]);
  // Fractional line numbers are not integers: the schema refuses them.
  t0.graph_breaks[0].lineno = 2.5;
  assert.match(
    (parsePayload(raw) as { reason: string }).reason,
    /lineno must be integer or null, not number/
  );
  const trace = recordFixture('trace');
  trace.ranks = [1, -1, 0];
  assert.deepEqual((parsePayload(trace) as ITracePayload).ranks, [1, 0]);
  const prof = recordFixture('profile') as Record<string, any>;
  const point = { t_s: 0, bytes: 1, what: '' };
  prof.memory = {
    ...(prof.memory ?? {
      device: 'cpu',
      peak_bytes: null,
      eager_peak_bytes: null,
      allocated_bytes: null,
      eager_allocated_bytes: null,
      outside_graphs_allocated_bytes: 0,
      untied_allocated_bytes: 0,
      eager_untied_allocated_bytes: 0,
      saved_bytes: null,
      eager_saved_bytes: null,
      note: '',
      notes: []
    }),
    across_breaks_bytes: -5,
    timeline: Array.from({ length: 2000 }, () => point),
    eager_timeline: []
  };
  const memory = (parsePayload(prof) as IProfilePayload).memory;
  assert.ok(memory);
  assert.equal(memory.timeline.length, 500);
  assert.equal(memory.across_breaks_bytes, 0);
});

test('a compile_time record parses: cold, restart, where, one row per remedy', () => {
  const p = parsePayload(recordFixture('compile_time'));
  assert.ok(p && p.record === 'compile_time', JSON.stringify(p));
  const c = p as ICompileTimePayload;
  assert.equal(c.name, 'Stack');
  assert.ok(c.cold_s !== null && c.cold_s > 0);
  assert.deepEqual(
    c.remedies.map(r => r.kind),
    ['regional', 'nested_region', 'dynamic']
  );
  assert.equal(c.where.repeated[0].count, 4);
  assert.ok(c.runs >= 2);
  const title = compileTimeTitle(c);
  assert.ok(title.startsWith('compile time of Stack: cold '), title);
  // a record the kernel did not write is refused, not drawn
  const bad = {
    ...recordFixture('compile_time'),
    remedies: [{ kind: 'magic' }]
  };
  const refused = parsePayload(bad);
  assert.ok(refused && refused.record === 'unknown', JSON.stringify(refused));
});
