/**
 * Readers of the report records listed beside the live targets: a TORCH_TRACE log
 * (`trace`), a measured profile (`profile`), proven fixes (`suggestions`) and a
 * diagnosis of a crash or a numeric difference (`diagnosis`). Same
 * rules as ./parse: untrusted input, every field coerced, `Map`s for record-keyed data.
 */

import type * as R from '../generated/record';
import {
  Json,
  lineOrNull,
  list,
  num,
  numMap,
  numOrNull,
  obj,
  parseSourceLine,
  str,
  strList,
  strOrNull
} from './coerce';
import {
  IBisection,
  IDiagnosisPayload,
  IDivergence,
  IKernelTime,
  ILineTime,
  IMeasured,
  IMemoryPoint,
  IProblem,
  IProfileMemory,
  IProfilePayload,
  IReference,
  IRung,
  ISuggestion,
  ISuggestionsPayload,
  ITraceCompile,
  ITracePayload,
  IWorkaround
} from '../model';
import { parseGraphBreak, parseKernel, parseOmission } from './parseparts';

/** A rank: a non-negative integer, else null. */
function rankOrNull(v: Json): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;
}

function parseTraceCompile(v: Json): ITraceCompile | null {
  const o = obj<R.TraceCompile>(v);
  if (!o) {
    return null;
  }
  return {
    rank: rankOrNull(o.rank),
    compile_id: str(o.compile_id),
    frame: str(o.frame),
    function: str(o.function),
    filename: str(o.filename),
    lineno: lineOrNull(o.lineno),
    status: str(o.status, 'compiled'),
    fail_reason: str(o.fail_reason),
    compile_time_s: num(o.compile_time_s),
    metric_phases: numMap(o.metric_phases),
    phases: numMap(o.phases),
    cache: numMap(o.cache),
    stack: list(o.stack, parseSourceLine),
    log: str(o.log),
    graph_breaks: list(o.graph_breaks, parseGraphBreak),
    recompile_reason: str(o.recompile_reason),
    guards: str(o.guards),
    graphs: strList(o.graphs),
    kernels: list(o.kernels, parseKernel),
    output_code: str(o.output_code),
    contents_omitted: o.contents_omitted === true
  };
}

function parseDivergence(v: Json): IDivergence | null {
  const o = obj<R.Divergence>(v);
  if (!o) {
    return null;
  }
  return {
    kind: str(o.kind),
    groups: list(o.groups, g =>
      Array.isArray(g) ? list(g, rankOrNull) : null
    ),
    detail: str(o.detail),
    compile_id: str(o.compile_id)
  };
}

export function parseTrace(v: Json, key: string): ITracePayload | null {
  const o = obj<R.TraceRecord>(v);
  if (!o) {
    return null;
  }
  return {
    record: 'trace',
    key,
    path: str(o.path),
    ranks: list(o.ranks, rankOrNull),
    compiles: list(o.compiles, parseTraceCompile),
    divergences: list(o.divergences, parseDivergence),
    problems: strList(o.problems),
    files: strList(o.files),
    unknown_events: numMap(o.unknown_events),
    events: num(o.events),
    bytes_read: num(o.bytes_read),
    interrupted: o.interrupted === true,
    truncated: o.truncated === true,
    omitted: list(o.omitted, parseOmission)
  };
}

function parseKernelTime(v: Json): IKernelTime | null {
  const o = obj<R.KernelTime>(v);
  if (!o) {
    return null;
  }
  return {
    name: str(o.name, '(unnamed)'),
    kind: str(o.kind, 'kernel'),
    calls: num(o.calls),
    total_s: num(o.total_s),
    mean_s: num(o.mean_s),
    share: num(o.share),
    compile_id: str(o.compile_id),
    stage: str(o.stage),
    lines: list(o.lines, lineOrNull),
    allocated_bytes: bytesOf(o.allocated_bytes)
  };
}

/** A byte count: a non-negative finite number, else 0. */
function bytesOf(v: Json): number {
  const n = num(v);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** Most timeline points read from one record (the kernel publishes at most 60). */
const MAX_POINTS = 500;

function parseMemoryPoint(v: Json): IMemoryPoint | null {
  const o = obj<R.MemoryPoint>(v);
  if (!o || typeof o.t_s !== 'number' || typeof o.bytes !== 'number') {
    return null;
  }
  return { t_s: o.t_s, bytes: o.bytes, what: str(o.what) };
}

function parseProfileMemory(v: Json): IProfileMemory | null {
  const o = obj<R.ProfileMemory>(v);
  if (!o) {
    return null;
  }
  return {
    device: str(o.device),
    peak_bytes: numOrNull(o.peak_bytes),
    eager_peak_bytes: numOrNull(o.eager_peak_bytes),
    allocated_bytes: numOrNull(o.allocated_bytes),
    eager_allocated_bytes: numOrNull(o.eager_allocated_bytes),
    saved_bytes: numOrNull(o.saved_bytes),
    eager_saved_bytes: numOrNull(o.eager_saved_bytes),
    across_breaks_bytes: bytesOf(o.across_breaks_bytes),
    outside_graphs_allocated_bytes: bytesOf(o.outside_graphs_allocated_bytes),
    timeline: list(o.timeline, parseMemoryPoint).slice(0, MAX_POINTS),
    eager_timeline: list(o.eager_timeline, parseMemoryPoint).slice(
      0,
      MAX_POINTS
    ),
    note: str(o.note),
    notes: strList(o.notes)
  };
}

function parseLineTime(v: Json): ILineTime | null {
  const o = obj<R.LineTime>(v);
  if (!o) {
    return null;
  }
  return {
    lineno: lineOrNull(o.lineno),
    line: str(o.line),
    compiled_s: num(o.compiled_s),
    eager_s: num(o.eager_s),
    kernels: strList(o.kernels),
    speedup: numOrNull(o.speedup),
    compiled_allocated_bytes: bytesOf(o.compiled_allocated_bytes),
    eager_allocated_bytes: bytesOf(o.eager_allocated_bytes)
  };
}

export function parseProfile(v: Json, key: string): IProfilePayload | null {
  const o = obj<R.Profile>(v);
  if (!o) {
    return null;
  }
  return {
    record: 'profile',
    key,
    name: str(o.name, '(unnamed)'),
    repeat: num(o.repeat),
    filename: str(o.filename),
    wall_s: num(o.wall_s),
    kernel_s: num(o.kernel_s),
    outside_graphs_s: num(o.outside_graphs_s),
    overhead_s: num(o.overhead_s),
    unaccounted_s: num(o.unaccounted_s),
    untied_s: num(o.untied_s),
    eager_wall_s: num(o.eager_wall_s),
    accounted: o.accounted === true,
    kernels: list(o.kernels, parseKernelTime),
    lines: list(o.lines, parseLineTime),
    notes: strList(o.notes),
    graph_breaks: list(o.graph_breaks, parseGraphBreak),
    compiles: strList(o.compiles),
    recompiles_during_profile: num(o.recompiles_during_profile),
    memory:
      o.memory === null || o.memory === undefined
        ? null
        : parseProfileMemory(o.memory),
    truncated: o.truncated === true,
    omitted: list(o.omitted, parseOmission)
  };
}

function parseMeasured(v: Json): IMeasured | null {
  const o = obj<R.Measured>(v);
  if (!o) {
    return null;
  }
  return {
    graphs: num(o.graphs),
    breaks: num(o.breaks),
    recompiles: num(o.recompiles),
    time_s: numOrNull(o.time_s),
    error: str(o.error),
    timing_note: str(o.timing_note)
  };
}

function parseProblem(v: Json): IProblem | null {
  const o = obj<R.Problem>(v);
  if (!o) {
    return null;
  }
  return {
    kind: str(o.kind),
    reason: str(o.reason),
    filename: strOrNull(o.filename),
    lineno: lineOrNull(o.lineno),
    line: str(o.line),
    in_library: o.in_library === true
  };
}

const NO_PROBLEM: IProblem = {
  kind: '',
  reason: '',
  filename: null,
  lineno: null,
  line: '',
  in_library: false
};

function parseSuggestion(v: Json): ISuggestion | null {
  const o = obj<R.Suggestion>(v);
  if (!o) {
    return null;
  }
  const same = obj<R.SameResult>(o.same_result) ?? {};
  return {
    problem: parseProblem(o.problem) ?? NO_PROBLEM,
    kind: str(o.kind),
    change: str(o.change),
    verified: o.verified === true,
    status: str(o.status),
    after: parseMeasured(o.after),
    same: {
      ok: typeof same.ok === 'boolean' ? same.ok : null,
      max_abs_diff: numOrNull(same.max_abs_diff),
      tolerance: str(same.tolerance),
      notes: strList(same.notes)
    },
    note: str(o.note)
  };
}

export function parseSuggestions(
  v: Json,
  key: string
): ISuggestionsPayload | null {
  const o = obj<R.Suggestions>(v);
  if (!o) {
    return null;
  }
  return {
    record: 'suggestions',
    key,
    name: str(o.name, '(unnamed)'),
    baseline: parseMeasured(o.baseline) ?? {
      graphs: 0,
      breaks: 0,
      recompiles: 0,
      time_s: null,
      error: '',
      timing_note: ''
    },
    problems: list(o.problems, parseProblem),
    items: list(o.items, parseSuggestion),
    calls: num(o.calls),
    budget_s: num(o.budget_s),
    elapsed_s: num(o.elapsed_s),
    notes: strList(o.notes)
  };
}

function parseRung(v: Json): IRung | null {
  const o = obj<R.Rung>(v);
  if (!o) {
    return null;
  }
  return {
    backend: str(o.backend),
    layer: str(o.layer),
    outcome: str(o.outcome, 'not run'),
    max_abs_diff: numOrNull(o.max_abs_diff),
    mismatched: numOrNull(o.mismatched),
    numel: num(o.numel),
    error: str(o.error),
    first_call_s: numOrNull(o.first_call_s),
    time_s: numOrNull(o.time_s),
    options: str(o.options),
    note: str(o.note)
  };
}

function parseBisection(v: Json): IBisection | null {
  const o = obj<R.Bisection>(v);
  if (!o) {
    return null;
  }
  return {
    backend: str(o.backend),
    subsystem: str(o.subsystem),
    bisect_number: numOrNull(o.bisect_number),
    debug_info: str(o.debug_info),
    steps: num(o.steps),
    elapsed_s: num(o.elapsed_s),
    note: str(o.note)
  };
}

function parseReference(v: Json): IReference | null {
  const o = obj<R.Reference>(v);
  if (!o) {
    return null;
  }
  return {
    dtype: str(o.dtype, 'torch.float64'),
    eager_error: numOrNull(o.eager_error),
    compiled_error: numOrNull(o.compiled_error),
    eager_mean_error: numOrNull(o.eager_mean_error),
    compiled_mean_error: numOrNull(o.compiled_mean_error),
    closer: str(o.closer, 'neither'),
    note: str(o.note)
  };
}

function parseWorkaround(v: Json): IWorkaround | null {
  const o = obj<R.Workaround>(v);
  if (!o) {
    return null;
  }
  return {
    kind: str(o.kind),
    change: str(o.change),
    verified: o.verified === true,
    status: str(o.status, 'not tried'),
    outcome: str(o.outcome, 'not run'),
    max_abs_diff: numOrNull(o.max_abs_diff),
    mismatched: numOrNull(o.mismatched),
    numel: num(o.numel),
    first_call_s: numOrNull(o.first_call_s),
    time_s: numOrNull(o.time_s),
    cost: str(o.cost),
    reference_error: numOrNull(o.reference_error),
    error: str(o.error),
    note: str(o.note)
  };
}

export function parseDiagnosis(v: Json, key: string): IDiagnosisPayload | null {
  const o = obj<R.Diagnosis>(v);
  if (!o) {
    return null;
  }
  return {
    record: 'diagnosis',
    key,
    name: str(o.name, '(unnamed)'),
    kind: str(o.kind),
    layer: strOrNull(o.layer),
    summary: str(o.summary),
    rungs: list(o.rungs, parseRung),
    culprit: str(o.culprit),
    filename: strOrNull(o.filename),
    lineno: lineOrNull(o.lineno),
    line: str(o.line),
    bisection: parseBisection(o.bisection),
    max_abs_diff: numOrNull(o.max_abs_diff),
    mismatched: numOrNull(o.mismatched),
    numel: num(o.numel),
    tolerance: str(o.tolerance),
    error: str(o.error),
    error_detail: str(o.error_detail),
    reference: parseReference(o.reference),
    workarounds: list(o.workarounds, parseWorkaround),
    inputs: strList(o.inputs),
    options: str(o.options),
    eager_time_s: numOrNull(o.eager_time_s),
    compiled_time_s: numOrNull(o.compiled_time_s),
    budget_s: num(o.budget_s),
    elapsed_s: num(o.elapsed_s),
    skipped: strList(o.skipped),
    notes: strList(o.notes),
    truncated: o.truncated === true
  };
}
