/**
 * Readers of the report records listed beside the live targets: a TORCH_TRACE log
 * (`trace`), a measured profile (`profile`), proven fixes (`suggestions`) and a
 * diagnosis of a crash or a numeric difference (`diagnosis`). Same rules as ./parse:
 * records ./intake checked (./schema typed), read as typed; `Map`s for record-keyed
 * data; only the value limits the schema does not state are checked here (ranks and line numbers
 * non-negative, byte counts at least 0, at most 500 memory-timeline points).
 */

import type * as R from '../generated/record';
import { lineOrNull, lines, numMap, parseSourceLine, pick } from './coerce';
import {
  IBisection,
  IDiagnosisPayload,
  IReference,
  IRung,
  IWorkaround
} from '../model/diagnosis';
import {
  IKernelTime,
  ILineTime,
  IMemoryPoint,
  IProfileMemory,
  IProfilePayload
} from '../model/profile';
import {
  IMeasured,
  IProblem,
  ISuggestion,
  ISuggestionsPayload
} from '../model/suggest';
import { IDivergence, ITraceCompile, ITracePayload } from '../model/trace';
import {
  parseGraphBreak,
  parseKernel,
  parseOmission,
  parseRunsAs
} from './parseparts';
import type { ProfileRecord, SuggestionsRecord } from './schema';

/** Ranks: the non-negative integers of `v` (others left out). */
function ranks(v: readonly number[]): number[] {
  return v.filter(r => Number.isInteger(r) && r >= 0);
}

/** A rank: a non-negative integer, else null. */
function rankOrNull(v: number | null): number | null {
  return v !== null && Number.isInteger(v) && v >= 0 ? v : null;
}

function parseTraceCompile(o: R.TraceCompile): ITraceCompile {
  return {
    rank: rankOrNull(o.rank),
    compile_id: o.compile_id,
    frame: o.frame,
    function: o.function,
    filename: o.filename,
    lineno: lineOrNull(o.lineno),
    status: o.status,
    fail_reason: o.fail_reason,
    compile_time_s: o.compile_time_s,
    metric_phases: numMap(o.metric_phases),
    phases: numMap(o.phases),
    cache: numMap(o.cache),
    stack: o.stack.map(parseSourceLine),
    log: o.log,
    graph_breaks: o.graph_breaks.map(parseGraphBreak),
    recompile_reason: o.recompile_reason,
    guards: o.guards,
    graphs: [...o.graphs],
    kernels: o.kernels.map(parseKernel),
    output_code: o.output_code,
    contents_omitted: o.contents_omitted === true,
    runs_as: o.runs_as ? parseRunsAs(o.runs_as) : null
  };
}

function parseDivergence(o: R.Divergence): IDivergence {
  return {
    kind: o.kind,
    groups: o.groups.map(ranks),
    detail: o.detail,
    compile_id: o.compile_id
  };
}

export function parseTrace(o: R.TraceRecord, key: string): ITracePayload {
  return {
    record: 'trace',
    key,
    path: o.path,
    ranks: ranks(o.ranks),
    compiles: o.compiles.map(parseTraceCompile),
    divergences: o.divergences.map(parseDivergence),
    problems: [...o.problems],
    files: [...o.files],
    unknown_events: numMap(o.unknown_events),
    events: o.events,
    bytes_read: o.bytes_read ?? 0,
    interrupted: o.interrupted === true,
    truncated: o.truncated === true,
    omitted: (o.omitted ?? []).map(parseOmission)
  };
}

/** A byte count: a non-negative number, else 0. */
function bytesOf(v: number | undefined): number {
  return v !== undefined && v > 0 ? v : 0;
}

function parseKernelTime(o: R.KernelTime): IKernelTime {
  return {
    name: o.name,
    kind: o.kind,
    calls: o.calls,
    total_s: o.total_s,
    mean_s: o.mean_s,
    share: o.share,
    compile_id: o.compile_id,
    stage: o.stage,
    lines: lines(o.lines),
    allocated_bytes: bytesOf(o.allocated_bytes)
  };
}

/** Most timeline points read from one record (the kernel publishes at most 60). */
const MAX_POINTS = 500;

function parseMemoryPoint(o: R.MemoryPoint): IMemoryPoint {
  return pick(o, ['t_s', 'bytes', 'what']);
}

function parseProfileMemory(o: R.ProfileMemory): IProfileMemory {
  return {
    device: o.device,
    peak_bytes: o.peak_bytes,
    eager_peak_bytes: o.eager_peak_bytes,
    allocated_bytes: o.allocated_bytes,
    eager_allocated_bytes: o.eager_allocated_bytes,
    saved_bytes: o.saved_bytes,
    eager_saved_bytes: o.eager_saved_bytes,
    across_breaks_bytes: bytesOf(o.across_breaks_bytes),
    outside_graphs_allocated_bytes: bytesOf(o.outside_graphs_allocated_bytes),
    timeline: o.timeline.slice(0, MAX_POINTS).map(parseMemoryPoint),
    eager_timeline: o.eager_timeline.slice(0, MAX_POINTS).map(parseMemoryPoint),
    note: o.note,
    notes: [...o.notes]
  };
}

function parseLineTime(o: R.LineTime): ILineTime {
  return {
    lineno: lineOrNull(o.lineno),
    line: o.line,
    compiled_s: o.compiled_s,
    eager_s: o.eager_s,
    kernels: [...o.kernels],
    speedup: o.speedup,
    compiled_allocated_bytes: bytesOf(o.compiled_allocated_bytes),
    eager_allocated_bytes: bytesOf(o.eager_allocated_bytes)
  };
}

export function parseProfile(o: ProfileRecord, key: string): IProfilePayload {
  return {
    record: 'profile',
    key,
    name: o.name,
    repeat: o.repeat,
    filename: o.filename,
    wall_s: o.wall_s,
    kernel_s: o.kernel_s,
    outside_graphs_s: o.outside_graphs_s,
    overhead_s: o.overhead_s,
    unaccounted_s: o.unaccounted_s,
    untied_s: o.untied_s,
    eager_wall_s: o.eager_wall_s,
    accounted: o.accounted,
    kernels: o.kernels.map(parseKernelTime),
    lines: o.lines.map(parseLineTime),
    notes: [...o.notes],
    graph_breaks: (o.graph_breaks ?? []).map(parseGraphBreak),
    cell_names: new Map(Object.entries(o.cell_names ?? {})),
    compiles: [...o.compiles],
    recompiles_during_profile: o.recompiles_during_profile,
    memory: o.memory ? parseProfileMemory(o.memory) : null,
    truncated: o.truncated === true,
    omitted: (o.omitted ?? []).map(parseOmission)
  };
}

function parseMeasured(o: R.Measured): IMeasured {
  return pick(o, [
    'graphs',
    'breaks',
    'recompiles',
    'time_s',
    'error',
    'timing_note'
  ]);
}

function parseProblem(o: R.Problem): IProblem {
  return {
    kind: o.kind,
    reason: o.reason,
    filename: o.filename,
    lineno: lineOrNull(o.lineno),
    line: o.line,
    in_library: o.in_library
  };
}

function parseSuggestion(o: R.Suggestion): ISuggestion {
  const same = o.same_result;
  return {
    problem: parseProblem(o.problem),
    kind: o.kind,
    change: o.change,
    verified: o.verified,
    status: o.status,
    after: o.after && parseMeasured(o.after),
    same: {
      ok: same.ok,
      max_abs_diff: same.max_abs_diff,
      tolerance: same.tolerance,
      notes: [...same.notes]
    },
    note: o.note
  };
}

export function parseSuggestions(
  o: SuggestionsRecord,
  key: string
): ISuggestionsPayload {
  return {
    record: 'suggestions',
    key,
    name: o.name,
    baseline: parseMeasured(o.baseline),
    problems: o.problems.map(parseProblem),
    items: o.items.map(parseSuggestion),
    calls: o.calls,
    budget_s: o.budget_s,
    elapsed_s: o.elapsed_s,
    notes: [...o.notes],
    cell_names: new Map(Object.entries(o.cell_names ?? {}))
  };
}

function parseRung(o: R.Rung): IRung {
  return pick(o, [
    'backend',
    'layer',
    'outcome',
    'max_abs_diff',
    'mismatched',
    'numel',
    'error',
    'first_call_s',
    'time_s',
    'options',
    'note'
  ]);
}

function parseBisection(o: R.Bisection): IBisection {
  return pick(o, [
    'backend',
    'subsystem',
    'bisect_number',
    'debug_info',
    'steps',
    'elapsed_s',
    'note'
  ]);
}

function parseReference(o: R.Reference): IReference {
  return pick(o, [
    'dtype',
    'eager_error',
    'compiled_error',
    'eager_mean_error',
    'compiled_mean_error',
    'closer',
    'note'
  ]);
}

function parseWorkaround(o: R.Workaround): IWorkaround {
  return pick(o, [
    'kind',
    'change',
    'verified',
    'status',
    'outcome',
    'max_abs_diff',
    'mismatched',
    'numel',
    'first_call_s',
    'time_s',
    'cost',
    'reference_error',
    'error',
    'note'
  ]);
}

export function parseDiagnosis(o: R.Diagnosis, key: string): IDiagnosisPayload {
  return {
    record: 'diagnosis',
    key,
    name: o.name,
    kind: o.kind,
    layer: o.layer,
    summary: o.summary,
    rungs: o.rungs.map(parseRung),
    culprit: o.culprit,
    filename: o.filename,
    lineno: lineOrNull(o.lineno),
    line: o.line,
    bisection: o.bisection && parseBisection(o.bisection),
    max_abs_diff: o.max_abs_diff,
    mismatched: o.mismatched,
    numel: o.numel,
    tolerance: o.tolerance,
    error: o.error,
    error_detail: o.error_detail,
    reference: o.reference && parseReference(o.reference),
    workarounds: o.workarounds.map(parseWorkaround),
    inputs: [...o.inputs],
    options: o.options,
    eager_time_s: o.eager_time_s,
    compiled_time_s: o.compiled_time_s,
    budget_s: o.budget_s,
    elapsed_s: o.elapsed_s,
    skipped: [...o.skipped],
    notes: [...o.notes],
    truncated: o.truncated,
    cell_names: new Map(Object.entries(o.cell_names ?? {}))
  };
}
