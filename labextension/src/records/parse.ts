/**
 * Record -> view model. Payloads come from notebook outputs, which are untrusted: every
 * field is checked and coerced into plain strings, numbers, arrays and `Map`s. Field
 * names are typed by the generated wire types (`Loose<R.X>`), so a field the schema
 * does not have is a compile error here. Nothing is evaluated, nothing becomes HTML.
 *
 * No JupyterLab imports: the unit tests run this under plain node.
 */

import type * as R from '../generated/record';
import { clip } from '../ui/format';
import {
  CHART_UNITS,
  comparisonTable,
  ITimingIn,
  timingNotes,
  timingTitle
} from '../views/timingtext';
import {
  IAnnotation,
  ICellRef,
  ICodeDiff,
  ICompile,
  ITargetError,
  ITargetOptions,
  ITargetRecord,
  ITimingPayload,
  ITorchLog,
  Payload,
  SCHEMA_VERSION
} from '../model';
import {
  boolOrNull,
  displayValue,
  entries,
  Json,
  lineOrNull,
  list,
  Loose,
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
  parseGraphBreak,
  parseKernel,
  parseOmission,
  parseRecompile
} from './parseparts';
import {
  parseDiagnosis,
  parseProfile,
  parseSuggestions,
  parseTrace
} from './parsereports';
import { ILimits, LIMITS, validateRecord } from './validate';

export { displayValue } from './coerce';

export function parseCompile(v: Json): ICompile | null {
  const o = obj<R.CompileRecord>(v);
  if (!o) {
    return null;
  }
  return {
    compile_id: str(o.compile_id),
    frame: str(o.frame),
    status: str(o.status, 'ok'),
    error: str(o.error),
    recompile_reason: str(o.recompile_reason),
    graphs: strList(o.graphs),
    graph_op_count: num(o.graph_op_count),
    guards: str(o.guards),
    times: numMap(o.times),
    cache: numMap(o.cache),
    phases: numMap(o.phases),
    graph_breaks: list(o.graph_breaks, parseGraphBreak),
    guard_latency_s: numOrNull(o.guard_latency_s)
  };
}

function parseTargetError(v: Json): ITargetError | null {
  const o = obj<R.TargetError>(v);
  if (!o) {
    return null;
  }
  return {
    type: str(o.type),
    message: str(o.message),
    filename: strOrNull(o.filename),
    lineno: lineOrNull(o.lineno),
    line: str(o.line),
    stack: list(o.stack, parseSourceLine)
  };
}

export function parseCellRef(v: Json): ICellRef {
  const o = obj<R.CellRef>(v) ?? {};
  return {
    filename: str(o.filename),
    execution_count: numOrNull(o.execution_count),
    cell_id: strOrNull(o.cell_id) || null
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

function parseOptions(v: Json): ITargetOptions {
  const o = obj<Record<string, Json>>(v) ?? {};
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

/** Parse one target record; `null` when it has no usable `id`. */
export function parseTarget(v: Json): ITargetRecord | null {
  const o = obj<R.TargetRecord>(v);
  const id = o ? str(o.id) : '';
  if (!o || !id) {
    return null;
  }
  const compiles = list(o.compiles, parseCompile);
  const kernels = list(o.kernels, parseKernel);
  let generated = 0;
  for (const k of kernels) {
    generated += k.kind === 'kernel' ? 1 : 0;
  }
  let graphs = 0;
  for (const c of compiles) {
    graphs += c.graphs.length;
  }
  return {
    id,
    name: str(o.name, id),
    kind: str(o.kind, 'function'),
    options: parseOptions(o.options),
    status: str(o.status, 'pending'),
    status_text: str(o.status_text),
    progress_text: o.status === 'compiling' ? str(o.progress_text) : '',
    compiled_inside: str(o.compiled_inside),
    wrapper: strOrNull(o.wrapper),
    compiled_object: str(o.compiled_object),
    cell: parseCellRef(o.cell),
    notes: strList(o.notes),
    error: parseTargetError(o.error),
    compiling_since: numOrNull(o.compiling_since),
    compiles,
    graph_count: num(o.graph_count, graphs),
    graph_breaks: list(o.graph_breaks, parseGraphBreak),
    recompiles: list(o.recompiles, parseRecompile),
    kernels,
    generated_kernel_count: generated,
    output_code: str(o.output_code),
    compile_time_s: num(o.compile_time_s),
    truncated: o.truncated === true,
    omitted: list(o.omitted, parseOmission),
    torch_logs: list(o.torch_logs, parseTorchLog),
    annotations: list(o.annotations, parseAnnotation),
    code_diffs: list(o.code_diffs, parseCodeDiff)
  };
}

function parseAnnotation(v: Json): IAnnotation | null {
  const o = obj<R.LineAnnotation>(v);
  if (!o) {
    return null;
  }
  return {
    lineno: lineOrNull(o.lineno),
    line: str(o.line),
    category: str(o.category),
    kernel_refs: list(o.kernel_refs, lineOrNull),
    reason: str(o.reason)
  };
}

function parseCodeDiff(v: Json): ICodeDiff | null {
  const o = obj<R.CodeDiff>(v);
  if (!o) {
    return null;
  }
  return {
    kernel: str(o.kernel),
    compile_id: str(o.compile_id),
    previous_compile_id: str(o.previous_compile_id),
    change: str(o.change, 'changed'),
    cause: str(o.cause),
    diff: str(o.diff)
  };
}

function parseTorchLog(v: Json): ITorchLog | null {
  const o = obj<R.TorchLog>(v);
  return o
    ? {
        level: str(o.level),
        logger: str(o.logger),
        compile_id: str(o.compile_id),
        message: str(o.message)
      }
    : null;
}

/** A timing record (the comparison of `nbcompile.compare`); `null` for any other shape. */
function parseTiming(o: Loose<ITimingIn>, key: string): ITimingPayload | null {
  const rows = list(o.rows, x => obj<R.TimingRow>(x));
  if (!rows.length || !rows.every(r => typeof r.mode === 'string')) {
    return null;
  }
  const table = comparisonTable(o, rows);
  const memoryChart: ITimingPayload['memoryChart'] = [];
  for (const r of rows) {
    if (
      typeof r.peak_memory_bytes === 'number' &&
      Number.isFinite(r.peak_memory_bytes)
    ) {
      memoryChart.push({
        label: str(r.mode),
        value: r.peak_memory_bytes,
        unit: CHART_UNITS.peak
      });
    }
  }
  const chart: ITimingPayload['chart'] = [];
  for (const r of rows) {
    if (
      str(r.kind) !== 'eager' &&
      typeof r.speedup === 'number' &&
      Number.isFinite(r.speedup)
    ) {
      chart.push({
        label: str(r.mode),
        value: r.speedup,
        unit: CHART_UNITS.speedup
      });
    }
  }
  if (!chart.length) {
    for (const r of rows) {
      if (typeof r.median_s === 'number' && Number.isFinite(r.median_s)) {
        chart.push({
          label: str(r.mode),
          value: r.median_s,
          unit: CHART_UNITS.median
        });
      }
    }
  }
  const notes = timingNotes(o, rows);
  const name = str(o.name);
  const inputs = strList(o.inputs);
  const title =
    str(o.title) || timingTitle(name, inputs) || str(o.expr) || 'Timing';
  return {
    record: 'timing',
    key: str(o.id) || key,
    title,
    updated_at: numOrNull(o.updated_at),
    tables: [table],
    chart,
    memoryChart,
    notes
  };
}

/** The record kinds this version reads (others are listed as not shown, unvalidated). */
const KINDS = new Set([
  'summary',
  'target',
  'timing',
  'trace',
  'profile',
  'suggestions',
  'diagnosis'
]);

/**
 * Parse one published payload (the value of the MIME type in a bundle).
 *
 * Accepts the object or its JSON text. Returns `null` for anything that is not a JSON
 * object at all. Records are validated first (./validate): what fails, and kinds and
 * shapes this version does not show, come back as `record: 'unknown'` with the reason.
 * `limits`: those of a published output by default (the whole record the inspector asks
 * the kernel for has its own, `WHOLE_LIMITS`).
 */
export function parsePayload(
  data: Json,
  limits: ILimits = LIMITS
): Payload | null {
  return checkPayload(data, limits)();
}

/**
 * `parsePayload` in two steps, for callers that give each its own task (a big record's
 * check and its reading each take a while): the check now; the returned function
 * reads the checked record.
 */
export function checkPayload(
  data: Json,
  limits: ILimits = LIMITS
): () => Payload | null {
  let value = data;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return () => null;
    }
  }
  const o = obj<R.SummaryRecord>(value);
  if (!o) {
    return () => null;
  }
  const kind = str(o.record);
  const key = `${kind || 'record'}:${stableKey(value)}`;
  if (!KINDS.has(kind) && o.schema_version === SCHEMA_VERSION) {
    const unknown: Payload = {
      record: 'unknown',
      kind: clip(kind, 40) || '(none)',
      key,
      reason: `it is a record of kind "${clip(kind, 40)}" this version does not show`
    };
    return () => unknown;
  }
  const verdict = validateRecord(value, limits);
  if (!verdict.ok) {
    const invalid: Payload = {
      record: 'unknown',
      kind: clip(kind, 40) || '(none)',
      key,
      reason: verdict.reason
    };
    return () => invalid;
  }
  const checked = value;
  return () => readChecked(checked, o, kind, key);
}

/** The payload of a record `checkPayload` accepted. */
function readChecked(
  value: Json,
  o: Loose<R.SummaryRecord>,
  kind: string,
  key: string
): Payload | null {
  if (kind === 'summary') {
    return {
      record: 'summary',
      cell: parseCellRef(o.cell),
      updated_at: numOrNull(o.updated_at),
      targets: list(o.targets, parseTarget)
    };
  }
  if (kind === 'target') {
    // A bare target record: a one-target summary.
    const t = parseTarget(value);
    return t
      ? { record: 'summary', cell: t.cell, updated_at: null, targets: [t] }
      : null;
  }
  if (kind === 'trace') {
    return parseTrace(value, key);
  }
  if (kind === 'profile') {
    return parseProfile(value, key);
  }
  if (kind === 'suggestions') {
    return parseSuggestions(value, key);
  }
  if (kind === 'diagnosis') {
    return parseDiagnosis(value, key);
  }
  const timing = parseTiming(value as Loose<ITimingIn>, key);
  if (timing) {
    return timing;
  }
  return {
    record: 'unknown',
    kind,
    key,
    reason: 'a timing record of a shape this version does not show'
  };
}

/**
 * A short deterministic key for a JSON value: FNV-1a over a bounded walk (the first
 * 20,000 values, each string's first 200 characters), so huge records cost no more.
 */
function stableKey(v: Json): string {
  let h = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  };
  const stack: Json[] = [v];
  for (let budget = 20_000; stack.length && budget > 0; budget--) {
    const x = stack.pop();
    if (Array.isArray(x)) {
      mix(`[${x.length}`);
      for (let i = Math.min(x.length, budget) - 1; i >= 0; i--) {
        stack.push(x[i]);
      }
    } else if (typeof x === 'object' && x !== null) {
      const keys = Object.keys(x);
      mix(`{${keys.length}`);
      for (const k of keys.slice(0, budget).reverse()) {
        mix(k.slice(0, 200));
        stack.push((x as Record<string, Json>)[k]);
      }
    } else {
      mix(
        typeof x === 'string' ? `"${x.length}:${x.slice(0, 200)}` : String(x)
      );
    }
  }
  return h.toString(16);
}
