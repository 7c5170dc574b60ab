/**
 * Record -> view model. Payloads come from notebook outputs, which are untrusted:
 * ./intake checks each once where it enters (./size, ./schema), and what passes is read
 * here as its generated wire type (../generated/record), into plain strings, numbers,
 * arrays and `Map`s. Only the value limits the schema does not state are checked here
 * (see ./coerce, ./parseparts), and the few fields it leaves open are coerced (a
 * target's options, older timing records' fields). The words of a timing record's
 * tables live in ./parsetiming. Nothing is evaluated, nothing becomes HTML.
 *
 * No JupyterLab imports: the unit tests run this under plain node.
 */

import type * as R from '../generated/record';
import { displayValue } from '../ui/format';
import { parseTiming } from './parsetiming';
import { Payload } from '../model/payload';
import {
  IAnnotation,
  ICellRef,
  ICodeDiff,
  ICompile,
  ICudagraphCall,
  ICudagraphOutcome,
  ITargetError,
  ITargetOptions,
  ITargetRecord,
  ITorchLog
} from '../model/target';
import {
  boolOrNull,
  entries,
  Json,
  lineOrNull,
  lines,
  Loose,
  numMap,
  parseSourceLine,
  pick,
  strOrNull
} from './coerce';
import {
  parseGraphBreak,
  parseKernel,
  parseOmission,
  parseRecompile,
  parseRunsAs
} from './parseparts';
import {
  parseDiagnosis,
  parseProfile,
  parseSuggestions,
  parseTrace
} from './parsereports';
import type { WireRecord } from './schema';

export function parseCompile(o: R.CompileRecord): ICompile {
  return {
    compile_id: o.compile_id,
    frame: o.frame,
    filename: o.filename,
    status: o.status,
    error: o.error,
    recompile_reason: o.recompile_reason,
    graphs: [...o.graphs],
    graph_op_count: o.graph_op_count,
    guards: o.guards,
    times: numMap(o.times),
    cache: numMap(o.cache),
    phases: numMap(o.phases),
    graph_breaks: o.graph_breaks.map(parseGraphBreak),
    guard_latency_s: o.guard_latency_s ?? null,
    cudagraphs: o.cudagraphs ? parseCudagraphs(o.cudagraphs) : null,
    runs_as: o.runs_as ? parseRunsAs(o.runs_as) : null,
    label: o.label ?? ''
  };
}

function parseCudagraphs(o: R.CudagraphOutcome): ICudagraphOutcome {
  return {
    status: o.status,
    reason: o.reason ?? '',
    line: o.line ? parseSourceLine(o.line) : null,
    cell: o.cell ?? null,
    partitions: o.partitions
      ? {
          partitions: o.partitions.partitions,
          cudagraphable: o.partitions.cudagraphable,
          outside: (o.partitions.outside ?? []).map(n => ({
            node: n.node,
            reason: n.reason,
            line: n.line ? parseSourceLine(n.line) : null,
            cell: n.cell ?? null
          }))
        }
      : null,
    text: o.text ?? ''
  };
}

function parseTargetError(o: R.TargetError): ITargetError {
  return {
    type: o.type,
    message: o.message,
    filename: o.filename,
    lineno: lineOrNull(o.lineno),
    line: o.line,
    stack: (o.stack ?? []).map(parseSourceLine)
  };
}

export function parseCellRef(o: R.CellRef): ICellRef {
  return {
    filename: o.filename ?? '',
    execution_count: o.execution_count ?? null,
    cell_id: o.cell_id || null
  };
}

const KNOWN_OPTIONS = new Set([
  'mode',
  'backend',
  'fullgraph',
  'dynamic',
  'disable',
  'options'
]);

/** A target's options: the schema leaves their values open, so each is coerced. */
function parseOptions(o: Loose<Record<string, Json>>): ITargetOptions {
  const options = new Map<string, string>();
  for (const [k, x] of entries(o.options)) {
    options.set(k, displayValue(x));
  }
  const extra = new Map<string, string>();
  for (const [k, x] of entries(o)) {
    if (!KNOWN_OPTIONS.has(k)) {
      extra.set(k, displayValue(x));
    }
  }
  return {
    mode: strOrNull(o.mode),
    backend: strOrNull(o.backend),
    fullgraph: boolOrNull(o.fullgraph),
    dynamic: boolOrNull(o.dynamic),
    disable: boolOrNull(o.disable),
    options,
    extra
  };
}

/** Read one target record; `null` when its `id` is empty. */
export function parseTarget(o: R.TargetRecord): ITargetRecord | null {
  const id = o.id;
  if (!id) {
    return null;
  }
  const compiles = o.compiles.map(parseCompile);
  const kernels = o.kernels.map(parseKernel);
  let generated = 0;
  for (const k of kernels) {
    generated += k.kind === 'kernel' ? 1 : 0;
  }
  return {
    id,
    name: o.name,
    kind: o.kind,
    options: parseOptions(o.options),
    status: o.status,
    status_text: o.status_text ?? '',
    progress_text: o.status === 'compiling' ? (o.progress_text ?? '') : '',
    compiled_inside: o.compiled_inside ?? '',
    wrapper: o.wrapper,
    compiled_object: o.compiled_object,
    cell: parseCellRef(o.cell),
    notes: [...o.notes],
    error: o.error && parseTargetError(o.error),
    compiling_since: o.compiling_since,
    compiles,
    graph_count: o.graph_count,
    graph_breaks: o.graph_breaks.map(parseGraphBreak),
    recompiles: o.recompiles.map(parseRecompile),
    kernels,
    generated_kernel_count: generated,
    output_code: o.output_code,
    compile_time_s: o.compile_time_s,
    truncated: o.truncated === true,
    omitted: (o.omitted ?? []).map(parseOmission),
    torch_logs: (o.torch_logs ?? []).map(parseTorchLog),
    annotations: (o.annotations ?? []).map(parseAnnotation),
    code_diffs: (o.code_diffs ?? []).map(parseCodeDiff),
    stance: o.stance ?? 'default',
    cudagraph_calls: (o.cudagraph_calls ?? []).map(parseCudagraphCall),
    cudagraph_hazards: (o.cudagraph_hazards ?? []).map(x => ({
      kind: x.kind,
      cell: x.cell ?? null,
      names: (x.names ?? []).map(n => n.name),
      text: x.text ?? ''
    })),
    cell_names: new Map(Object.entries(o.cell_names ?? {}))
  };
}

function parseCudagraphCall(o: R.CudagraphCall): ICudagraphCall {
  return {
    call: o.call,
    cell: o.cell ?? null,
    warmups: o.warmups ?? 0,
    recordings: o.recordings ?? 0,
    replays: o.replays ?? 0,
    eager: o.eager ?? 0,
    rerecords: (o.rerecords ?? []).map(r => ({
      reason: r.reason,
      inputs: [...(r.inputs ?? [])],
      line: r.line ?? ''
    })),
    new_shapes: (o.new_shapes ?? []).map(s => s.key),
    fell_back: o.fell_back ?? '',
    pool_before: o.pool_before ?? null,
    pool_after: o.pool_after ?? null,
    what: o.what ?? '',
    backward: o.backward === true
  };
}

function parseAnnotation(o: R.LineAnnotation): IAnnotation {
  return {
    lineno: lineOrNull(o.lineno),
    line: o.line,
    category: o.category,
    kernel_refs: lines(o.kernel_refs),
    reason: o.reason
  };
}

function parseCodeDiff(o: R.CodeDiff): ICodeDiff {
  return pick(o, [
    'kernel',
    'compile_id',
    'previous_compile_id',
    'change',
    'cause',
    'diff'
  ]);
}

function parseTorchLog(o: R.TorchLog): ITorchLog {
  return pick(o, ['level', 'logger', 'compile_id', 'message']);
}

/** The payload of a record ./intake checked (the only way in: see there). */
export function readRecord(o: WireRecord, key: string): Payload | null {
  switch (o.record) {
    case 'summary':
      return {
        record: 'summary',
        cell: parseCellRef(o.cell),
        updated_at: o.updated_at,
        targets: o.targets.map(parseTarget).filter(t => t !== null)
      };
    case 'target': {
      // A bare target record: a one-target summary.
      const t = parseTarget(o);
      return t
        ? { record: 'summary', cell: t.cell, updated_at: null, targets: [t] }
        : null;
    }
    case 'trace':
      return parseTrace(o, key);
    case 'profile':
      return parseProfile(o, key);
    case 'suggestions':
      return parseSuggestions(o, key);
    case 'diagnosis':
      return parseDiagnosis(o, key);
    case 'timing':
      return parseTiming(o, key);
    case 'compile_time':
      return {
        record: 'compile_time',
        key,
        name: o.name,
        cold_s: o.cold_s,
        warm_restart_s: o.warm_restart_s,
        where: o.where,
        remedies: o.remedies,
        kernel_compiles: o.kernel_compiles,
        runs: o.runs.length,
        elapsed_s: o.elapsed_s,
        notes: [...o.notes],
        interrupted: o.interrupted,
        truncated: o.truncated
      };
  }
}
