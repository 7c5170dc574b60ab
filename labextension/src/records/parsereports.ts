/**
 * Readers of the report records listed beside the live targets: a TORCH_TRACE log
 * (`trace`), a measured profile (`profile`) and proven fixes (`suggestions`). Same
 * rules as ./parse: untrusted input, every field coerced, `Map`s for record-keyed data.
 */

import type * as R from '../generated/record';
import { Json, lineOrNull, list, num, numMap, numOrNull, obj, parseSourceLine, str, strList, strOrNull } from './coerce';
import {
  IDivergence,
  IKernelTime,
  ILineTime,
  IMeasured,
  IProblem,
  IProfilePayload,
  ISuggestion,
  ISuggestionsPayload,
  ITraceCompile,
  ITracePayload
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
    groups: list(o.groups, g => (Array.isArray(g) ? list(g, rankOrNull) : null)),
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
    lines: list(o.lines, lineOrNull)
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
    speedup: numOrNull(o.speedup)
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

const NO_PROBLEM: IProblem = { kind: '', reason: '', filename: null, lineno: null, line: '', in_library: false };

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

export function parseSuggestions(v: Json, key: string): ISuggestionsPayload | null {
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
