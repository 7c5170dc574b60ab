/**
 * Record -> view model. Payloads come from notebook outputs, which are untrusted:
 * ./intake checks each once where it enters (./size, ./schema), and what passes is read
 * here as its generated wire type (../generated/record), each object with `present`
 * (./coerce: every field, an absent one's default, record-keyed objects as `Map`s, all
 * from the schema). Written by hand here: only the parsed sub-records, the value limits
 * the schema does not state (see ./coerce, ./parseparts), and the coercion of the few
 * fields it leaves open (a target's options, older timing records' fields). The words of a timing record's
 * tables live in ./parsetiming. Nothing is evaluated, nothing becomes HTML.
 *
 * No JupyterLab imports: the unit tests run this under plain node.
 */

import type * as R from '../generated/record';
import { displayValue } from '../ui/format';
import { parseTiming } from './parsetiming';
import { Payload } from '../model/payload';
import {
  ICellRef,
  ICompile,
  ICudagraphCall,
  ICudagraphOutcome,
  ITargetError,
  ITargetOptions,
  ITargetRecord
} from '../model/target';
import {
  boolOrNull,
  entries,
  Json,
  lineOrNull,
  lines,
  Loose,
  parseSourceLine,
  present,
  strOrNull
} from './coerce';
import { parseGraphBreak, parseKernel, parseRunsAs } from './parseparts';
import {
  parseDiagnosis,
  parseProfile,
  parseSuggestions,
  parseTrace
} from './parsereports';
import type { WireRecord } from './schema';

export function parseCompile(o: R.CompileRecord): ICompile {
  return {
    ...present('CompileRecord', o),
    graph_breaks: o.graph_breaks.map(parseGraphBreak),
    cudagraphs: o.cudagraphs ? parseCudagraphs(o.cudagraphs) : null,
    runs_as: o.runs_as ? parseRunsAs(o.runs_as) : null
  };
}

function parseCudagraphs(o: R.CudagraphOutcome): ICudagraphOutcome {
  const p = o.partitions;
  return {
    ...present('CudagraphOutcome', o),
    line: o.line ? parseSourceLine(o.line) : null,
    partitions: p
      ? {
          ...present('CudagraphPartitions', p),
          outside: p.outside.map(n => ({
            ...present('CudagraphPartitionNode', n),
            line: n.line ? parseSourceLine(n.line) : null
          }))
        }
      : null
  };
}

function parseTargetError(o: R.TargetError): ITargetError {
  const e = present('TargetError', o);
  return {
    ...e,
    lineno: lineOrNull(e.lineno),
    stack: e.stack.map(parseSourceLine)
  };
}

export function parseCellRef(o: R.CellRef): ICellRef {
  const c = present('CellRef', o);
  return { ...c, cell_id: c.cell_id || null };
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
  if (!o.id) {
    return null;
  }
  const t = present('TargetRecord', o);
  const kernels = t.kernels.map(parseKernel);
  let generated = 0;
  for (const k of kernels) {
    generated += k.kind === 'kernel' ? 1 : 0;
  }
  return {
    ...t,
    options: parseOptions(o.options),
    progress_text: o.status === 'compiling' ? t.progress_text : '',
    cell: parseCellRef(t.cell),
    error: t.error && parseTargetError(t.error),
    compiles: t.compiles.map(parseCompile),
    graph_breaks: t.graph_breaks.map(parseGraphBreak),
    recompiles: t.recompiles.map(r => present('Recompile', r)),
    kernels,
    generated_kernel_count: generated,
    omitted: t.omitted.map(x => present('Omission', x)),
    torch_logs: t.torch_logs.map(l => present('TorchLog', l)),
    annotations: t.annotations.map(a => ({
      ...present('LineAnnotation', a),
      lineno: lineOrNull(a.lineno),
      kernel_refs: lines(a.kernel_refs)
    })),
    code_diffs: t.code_diffs.map(d => present('CodeDiff', d)),
    cudagraph_calls: t.cudagraph_calls.map(parseCudagraphCall),
    cudagraph_hazards: t.cudagraph_hazards.map(x => ({
      ...present('CudagraphHazard', x),
      names: (x.names ?? []).map(n => n.name)
    }))
  };
}

function parseCudagraphCall(o: R.CudagraphCall): ICudagraphCall {
  const c = present('CudagraphCall', o);
  return {
    ...c,
    rerecords: c.rerecords.map(r => present('CudagraphRerecord', r)),
    new_shapes: c.new_shapes.map(s => s.key)
  };
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
      return { ...present('CompileTime', o), key, runs: o.runs.length };
  }
}
