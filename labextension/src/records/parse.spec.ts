/**
 * A summary record (the fixture the Python side generated from a real compile,
 * tests/fixtures/records/summary.json) and a compile_time record read into their
 * payloads: every field the sidebar shows, typed; the value limits the schema does not
 * state.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { SCHEMA_VERSION } from '../model/payload';
import type { IProfilePayload } from '../model/profile';
import type { ISummaryPayload } from '../model/target';
import type { ITracePayload } from '../model/trace';
import { parsePayload } from './intake';
import {
  editorMimeType,
  isCellFile,
  shortPath,
  statusText,
  whereText
} from '../ui/format';
import { compileTimeTitle } from '../views/compiletimetext';

import { fixture, recordFixture, summary, V1_SAVED } from '../../test/support';

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
  // another cell's file, named by the record: the cell as the notebook shows it
  const other = '/tmp/ipykernel_7/123.py';
  assert.equal(
    whereText(other, 4, cell, [], new Map([[other, 'cell [3]']])),
    'cell [3], line 4'
  );
  // unnamed (a record saved before cells were named): read as a cell line, as before
  assert.equal(whereText(other, 4, cell, []), 'line 4');
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

test('compiles carry their phases, guard latency and breaks', () => {
  const t = summary().targets[0];
  assert.ok(t.compiles.some(c => c.phases.size > 0));
  assert.deepEqual(
    t.compiles.map(c => c.graph_breaks.length),
    [1, 0, 1, 0]
  );
  assert.equal(t.graph_breaks[0].gb_id.startsWith('GB'), true);
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
  // Fractional line numbers are not integers: the schema refuses them. (A changed
  // record is a new object: ./intake keeps one result per record object.)
  t0.graph_breaks[0].lineno = 2.5;
  assert.match(
    (parsePayload(structuredClone(raw)) as { reason: string }).reason,
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
  const c = p;
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

test('a compile reads what torch runs in place of it, steps in order', () => {
  const raw = fixture() as {
    targets: { compiles: Record<string, unknown>[] }[];
  };
  raw.targets[0].compiles[0].runs_as = {
    source: 'def f(x):\n    return __resume_at_6_1(x)\n',
    steps: [
      { kind: 'graph', text: 'graph of 0/0 (1 op: sin)', graph: 0 },
      { kind: 'python', text: "print('x') in Python (line 3)", lineno: 3 },
      { kind: 'resume', text: 'resume in r', frame: 'r', graph: -1 }
    ],
    walk: 'graph of 0/0 (1 op: sin) -> ...'
  };
  const [t] = summary(raw).targets;
  const ra = t.compiles[0].runs_as;
  assert.ok(ra);
  assert.equal(ra.problem, '');
  assert.deepEqual(
    ra.steps.map(s => [s.kind, s.graph, s.lineno, s.frame]),
    [
      ['graph', 0, null, ''],
      ['python', null, 3, ''],
      ['resume', null, null, 'r']
    ]
  );
  // the fixture's own compile carries torch's real transformed code; an older record none
  const real = summary(fixture()).targets[0].compiles[0].runs_as;
  assert.ok(real && real.source.startsWith('def '));
  const older = fixture() as typeof raw;
  delete older.targets[0].compiles[0].runs_as;
  assert.equal(summary(older).targets[0].compiles[0].runs_as, null);
});
