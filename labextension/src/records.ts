/**
 * The nbcompile record contract, TypeScript side.
 *
 * Mirrors `nbcompile/core/records.py` (the producer) and the payload built by
 * `nbcompile/display/bundle.py`. Everything here is *parsing*: payloads come from
 * notebook outputs, which are untrusted, so every field is checked and coerced into
 * plain strings, numbers and arrays. Nothing is evaluated, nothing becomes HTML.
 *
 * This module imports nothing from JupyterLab so that it runs under plain node (the
 * unit tests parse the shared fixtures with it).
 */

export const MIME_TYPE = 'application/vnd.nbcompile.v1+json';
export const SCHEMA_VERSION = 1;

export type KernelLanguage = 'cpp' | 'triton' | 'python';
export type KernelKind = 'kernel' | 'extern' | 'wrapper';
export type TargetStatus =
  | 'pending'
  | 'compiling'
  | 'compiled'
  | 'failed'
  | 'disabled';

export interface ISourceLine {
  filename: string;
  lineno: number | null;
  line: string;
}

export interface IGraphBreak {
  reason: string;
  filename: string | null;
  lineno: number | null;
  line: string;
  hint: string;
  explanation: string;
  gb_type: string;
  compile_id: string;
  /** Dynamo's user stack, outermost first (cell line, then library lines). */
  stack: ISourceLine[];
}

export interface IRecompile {
  reason: string;
  compile_id: string;
  guard: string;
}

export interface IKernel {
  name: string;
  /** `cpp`, `triton` or `python`; anything else is kept as given. */
  language: string;
  /** `kernel`, `extern` or `wrapper`; anything else is kept as given. */
  kind: string;
  source: string;
  size: number;
  compile_id: string;
  ops: string[];
  lines: ISourceLine[];
}

export interface ICompile {
  compile_id: string;
  frame: string;
  filename: string;
  firstlineno: number;
  status: string;
  error: string;
  recompile_reason: string;
  graphs: string[];
  graph_op_count: number;
  guards: string;
  output_code: string;
  output_code_path: string;
  kernels: IKernel[];
  graph_breaks: IGraphBreak[];
  times: Record<string, number>;
  cache: Record<string, number>;
  started_at: number;
}

export interface ITargetError {
  type: string;
  message: string;
  filename: string | null;
  lineno: number | null;
  line: string;
  /** Dynamo's user stack, outermost first, as for graph breaks. */
  stack: ISourceLine[];
}

export interface ICellRef {
  filename: string;
  execution_count: number | null;
  cell_id: string | null;
}

export interface ITargetOptions {
  mode: string | null;
  backend: string | null;
  fullgraph: boolean | null;
  dynamic: boolean | null;
  disable: boolean | null;
  /** Inductor `options=`; values kept as short display strings. */
  options: Record<string, string>;
  /** Any other option keys, as display strings. */
  extra: Record<string, string>;
}

export interface ITargetRecord {
  id: string;
  name: string;
  kind: string;
  options: ITargetOptions;
  status: string;
  wrapper: string | null;
  compiled_object: string;
  cell: ICellRef;
  notes: string[];
  error: ITargetError | null;
  compiling_since: number | null;
  compiles: ICompile[];
  graph_count: number;
  graph_breaks: IGraphBreak[];
  recompiles: IRecompile[];
  kernels: IKernel[];
  output_code: string;
  compile_time_s: number;
  truncated: boolean;
  schema_version: number;
}

/** A `"record": "summary"` payload: the targets of one `%%compile` cell (or report). */
export interface ISummaryPayload {
  record: 'summary';
  schema_version: number;
  cell: ICellRef;
  updated_at: number | null;
  targets: ITargetRecord[];
}

/** One table of a timing payload: column names and display-ready cells. */
export interface ITable {
  title: string;
  columns: string[];
  rows: (string | number | boolean | null)[][];
}

/** A `"record": "timing"` payload (the comparison feature), read generically. */
export interface ITimingPayload {
  record: 'timing';
  schema_version: number;
  /** Stable key used to de-duplicate the same record seen twice. */
  key: string;
  title: string;
  updated_at: number | null;
  tables: ITable[];
  /** Bars for a chart: label and value (e.g. median seconds per mode). */
  chart: { label: string; value: number; unit: string }[];
  notes: string[];
}

/** Any other record kind: kept so the UI can say it exists, never interpreted. */
export interface IUnknownPayload {
  record: 'unknown';
  kind: string;
  schema_version: number;
  key: string;
}

export type Payload = ISummaryPayload | ITimingPayload | IUnknownPayload;

// ---------------------------------------------------------------------------
// Coercion helpers: untrusted JSON in, plain values out.
// ---------------------------------------------------------------------------

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: Json, fallback = ''): string {
  if (typeof v === 'string') {
    return v;
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    return String(v);
  }
  return fallback;
}

function strOrNull(v: Json): string | null {
  return typeof v === 'string' ? v : null;
}

function num(v: Json, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function numOrNull(v: Json): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function boolOrNull(v: Json): boolean | null {
  return typeof v === 'boolean' ? v : null;
}

function arr(v: Json): Json[] {
  return Array.isArray(v) ? v : [];
}

function strList(v: Json): string[] {
  return arr(v)
    .filter(x => typeof x === 'string' || typeof x === 'number')
    .map(x => str(x));
}

function numDict(v: Json): Record<string, number> {
  const out: Record<string, number> = {};
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'number' && Number.isFinite(x)) {
        out[k] = x;
      }
    }
  }
  return out;
}

/** A short, display-only rendering of any JSON value (never evaluated). */
export function displayValue(v: Json): string {
  if (v === null || v === undefined) {
    return 'None';
  }
  if (typeof v === 'string') {
    return v;
  }
  if (typeof v === 'boolean') {
    return v ? 'True' : 'False';
  }
  if (typeof v === 'number') {
    return String(v);
  }
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

// ---------------------------------------------------------------------------
// Record parsers.
// ---------------------------------------------------------------------------

export function parseGraphBreak(v: Json): IGraphBreak | null {
  if (!isObject(v)) {
    return null;
  }
  return {
    reason: str(v.reason),
    filename: strOrNull(v.filename),
    lineno: numOrNull(v.lineno),
    line: str(v.line),
    hint: str(v.hint),
    explanation: str(v.explanation),
    gb_type: str(v.gb_type),
    compile_id: str(v.compile_id),
    stack: nonNull(arr(v.stack).map(parseSourceLine))
  };
}

/** Whether a code filename is a notebook cell's (IPython or ipykernel naming). */
export function isCellFile(filename: string | null, cell: ICellRef): boolean {
  if (!filename) {
    return false;
  }
  return (
    filename === cell.filename ||
    filename.startsWith('<ipython-input-') ||
    /ipykernel_\d+[\\/]\d+\.py$/.test(filename)
  );
}

/**
 * Where a break or error happened, in words: ``line 5`` for the cell, or for library code
 * ``torch/optim/optimizer.py:79 (reached from cell line 9)`` using the user stack.
 */
export function whereText(
  filename: string | null,
  lineno: number | null,
  cell: ICellRef,
  stack: ISourceLine[]
): string {
  if (!filename || isCellFile(filename, cell)) {
    return `line ${lineno ?? '?'}`;
  }
  const via = [...stack].reverse().find(f => f.filename === cell.filename);
  const from = via ? ` (reached from cell line ${via.lineno ?? '?'})` : '';
  return `${shortPath(filename, lineno)}${from}`;
}

/** ``torch/optim/optimizer.py:79`` for a library file: its last three path parts. */
export function shortPath(filename: string, lineno: number | null): string {
  const parts = filename.split(/[\\/]/);
  return `${parts.slice(-3).join('/')}${lineno !== null ? `:${lineno}` : ''}`;
}

export function parseRecompile(v: Json): IRecompile | null {
  if (!isObject(v)) {
    return null;
  }
  return {
    reason: str(v.reason),
    compile_id: str(v.compile_id),
    guard: str(v.guard)
  };
}

function parseSourceLine(v: Json): ISourceLine | null {
  if (!isObject(v)) {
    return null;
  }
  return {
    filename: str(v.filename),
    lineno: numOrNull(v.lineno),
    line: str(v.line)
  };
}

export function parseKernel(v: Json): IKernel | null {
  if (!isObject(v)) {
    return null;
  }
  const source = str(v.source);
  return {
    name: str(v.name, '(unnamed)'),
    language: str(v.language, 'python'),
    kind: str(v.kind, 'kernel'),
    source,
    size: num(v.size, source.length),
    compile_id: str(v.compile_id),
    ops: strList(v.ops),
    lines: nonNull(arr(v.lines).map(parseSourceLine))
  };
}

export function parseCompile(v: Json): ICompile | null {
  if (!isObject(v)) {
    return null;
  }
  return {
    compile_id: str(v.compile_id),
    frame: str(v.frame),
    filename: str(v.filename),
    firstlineno: num(v.firstlineno),
    status: str(v.status, 'ok'),
    error: str(v.error),
    recompile_reason: str(v.recompile_reason),
    graphs: strList(v.graphs),
    graph_op_count: num(v.graph_op_count),
    guards: str(v.guards),
    output_code: str(v.output_code),
    output_code_path: str(v.output_code_path),
    kernels: nonNull(arr(v.kernels).map(parseKernel)),
    graph_breaks: nonNull(arr(v.graph_breaks).map(parseGraphBreak)),
    times: numDict(v.times),
    cache: numDict(v.cache),
    started_at: num(v.started_at)
  };
}

function parseTargetError(v: Json): ITargetError | null {
  if (!isObject(v)) {
    return null;
  }
  return {
    type: str(v.type),
    message: str(v.message),
    filename: strOrNull(v.filename),
    lineno: numOrNull(v.lineno),
    line: str(v.line),
    stack: nonNull(arr(v.stack).map(parseSourceLine))
  };
}

export function parseCellRef(v: Json): ICellRef {
  const o = isObject(v) ? v : {};
  return {
    filename: str(o.filename),
    execution_count: numOrNull(o.execution_count),
    cell_id: strOrNull(o.cell_id) || null
  };
}

function parseOptions(v: Json): ITargetOptions {
  const o = isObject(v) ? v : {};
  const options: Record<string, string> = {};
  if (isObject(o.options)) {
    for (const [k, x] of Object.entries(o.options)) {
      options[k] = displayValue(x);
    }
  }
  const known = new Set([
    'mode',
    'backend',
    'fullgraph',
    'dynamic',
    'disable',
    'options'
  ]);
  const extra: Record<string, string> = {};
  for (const [k, x] of Object.entries(o)) {
    if (!known.has(k)) {
      extra[k] = displayValue(x);
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
  if (!isObject(v)) {
    return null;
  }
  const id = str(v.id);
  if (!id) {
    return null;
  }
  const compiles = nonNull(arr(v.compiles).map(parseCompile));
  const kernels = nonNull(arr(v.kernels).map(parseKernel));
  const breaks = nonNull(arr(v.graph_breaks).map(parseGraphBreak));
  const recompiles = nonNull(arr(v.recompiles).map(parseRecompile));
  const compiling = numOrNull(v.compiling_since);
  return {
    id,
    name: str(v.name, id),
    kind: str(v.kind, 'function'),
    options: parseOptions(v.options),
    status: str(v.status, 'pending'),
    wrapper: strOrNull(v.wrapper),
    compiled_object: str(v.compiled_object),
    cell: parseCellRef(v.cell),
    notes: strList(v.notes),
    error: parseTargetError(v.error),
    compiling_since: compiling,
    compiles,
    graph_count: num(
      v.graph_count,
      compiles.reduce((n, c) => n + c.graphs.length, 0)
    ),
    graph_breaks: breaks,
    recompiles,
    kernels,
    output_code: str(v.output_code),
    compile_time_s: num(v.compile_time_s),
    truncated: v.truncated === true,
    schema_version: num(v.schema_version, SCHEMA_VERSION)
  };
}

function scalar(x: Json): string | number | boolean | null {
  if (x === null || x === undefined) {
    return null;
  }
  if (typeof x === 'number' || typeof x === 'boolean' || typeof x === 'string') {
    return x;
  }
  return displayValue(x);
}

/** `1.23 ms` style time for the timing table. */
function fmtTime(s: Json): string {
  if (typeof s !== 'number' || !Number.isFinite(s)) {
    return '-';
  }
  for (const [unit, scale] of [
    ['s', 1],
    ['ms', 1e-3],
    ['µs', 1e-6]
  ] as const) {
    if (s >= scale) {
      return `${(s / scale).toPrecision(3)} ${unit}`;
    }
  }
  return `${(s / 1e-9).toPrecision(3)} ns`;
}

function fmtBytes(n: Json): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    return '-';
  }
  let v = n;
  for (const unit of ['B', 'KiB', 'MiB']) {
    if (v < 1024) {
      return unit === 'B' ? `${v.toFixed(0)} B` : `${v.toFixed(1)} ${unit}`;
    }
    v /= 1024;
  }
  return `${v.toFixed(1)} GiB`;
}

/** The comparison's rows (`nbcompile.compare`): curated, formatted columns. */
function comparisonTable(rows: Record<string, Json>[]): ITable {
  const columns = ['mode', 'compile', 'run (median ± IQR/2)', 'speedup', 'max |diff|', 'peak memory'];
  return {
    title: 'modes',
    columns,
    rows: rows.map(r => {
      const kind = str(r.kind);
      const failed = str(r.status) === 'failed';
      let speedup = '-';
      if (kind === 'eager') {
        speedup = '1.00× (baseline)';
      } else if (failed) {
        speedup = 'failed';
      } else if (typeof r.speedup === 'number') {
        const verdict = str(r.verdict);
        speedup = `${r.speedup.toFixed(2)}×` + (verdict ? ` ${verdict}` : '');
      }
      let diff = '-';
      if (kind === 'eager') {
        diff = 'reference';
      } else if (typeof r.max_abs_diff === 'number') {
        diff = `${r.max_abs_diff.toPrecision(2)} ${r.numerics_ok === false ? 'DIFFERS' : 'ok'}`;
      }
      const run =
        typeof r.median_s === 'number'
          ? `${fmtTime(r.median_s)} ± ${fmtTime(num(r.iqr_s) / 2)}`
          : '-';
      return [
        str(r.mode),
        typeof r.compile_s === 'number' ? `${r.compile_s.toFixed(2)} s` : '-',
        run,
        speedup,
        diff,
        fmtBytes(r.peak_memory_bytes)
      ];
    })
  };
}

function parseTiming(o: Record<string, Json>): ITimingPayload {
  const tables: ITable[] = [];
  const chart: ITimingPayload['chart'] = [];
  const notes: string[] = [];
  const rows = arr(o.rows).filter(isObject);
  if (rows.length && rows.every(r => typeof r.mode === 'string')) {
    // The comparison record of `nbcompile.compare` / `%compare`.
    tables.push(comparisonTable(rows));
    for (const r of rows) {
      if (str(r.kind) !== 'eager' && typeof r.speedup === 'number') {
        chart.push({ label: str(r.mode), value: r.speedup, unit: 'speedup vs eager (×, median)' });
      }
    }
    if (!chart.length) {
      for (const r of rows) {
        if (typeof r.median_s === 'number') {
          chart.push({ label: str(r.mode), value: r.median_s, unit: 'median run time (s)' });
        }
      }
    }
    for (const r of rows) {
      const mode = str(r.mode);
      if (str(r.error)) {
        notes.push(`${mode}: ${str(r.error)}`);
      }
      for (const n of strList(r.notes)) {
        notes.push(`${mode}: ${n}`);
      }
    }
    if (typeof o.best === 'string') {
      notes.push(`best: ${o.best}`);
    }
    const facts = [
      str(o.device),
      typeof o.num_threads === 'number' ? `${o.num_threads} thread(s)` : '',
      typeof o.elapsed_s === 'number' ? `took ${o.elapsed_s.toFixed(1)} s` : ''
    ].filter(Boolean);
    if (facts.length) {
      notes.push(facts.join(', '));
    }
  } else {
    // Another shape: every array of objects becomes a table of its scalar columns.
    for (const [k, v] of Object.entries(o)) {
      const objects = arr(v).filter(isObject);
      if (!objects.length) {
        continue;
      }
      const columns: string[] = [];
      for (const row of objects) {
        for (const [c, x] of Object.entries(row)) {
          if (!columns.includes(c) && (x === null || typeof x !== 'object')) {
            columns.push(c);
          }
        }
      }
      tables.push({ title: k, columns, rows: objects.map(row => columns.map(c => scalar(row[c]))) });
    }
    for (const t of tables) {
      const labelCol = ['mode', 'name', 'label', 'variant'].find(c => t.columns.includes(c));
      const valueCol =
        t.columns.find(c => /median/i.test(c)) ||
        t.columns.find(c => /(time|mean|_s$|_ms$|_us$)/i.test(c) && !/compile/i.test(c));
      if (labelCol && valueCol) {
        const li = t.columns.indexOf(labelCol);
        const vi = t.columns.indexOf(valueCol);
        for (const row of t.rows) {
          const value = row[vi];
          if (typeof value === 'number' && Number.isFinite(value)) {
            chart.push({ label: displayValue(row[li]), value, unit: valueCol });
          }
        }
        if (chart.length) {
          break;
        }
      }
    }
  }
  notes.unshift(...strList(o.notes));
  const name = str(o.name);
  const inputs = strList(o.inputs);
  const title =
    str(o.title) ||
    (name ? `compare(${name})${inputs.length ? ': ' + inputs.join(', ') : ''}` : '') ||
    str(o.expr) ||
    'Timing';
  return {
    record: 'timing',
    schema_version: num(o.schema_version, SCHEMA_VERSION),
    key: str(o.id) || 'timing:' + stableKey(o),
    title,
    updated_at: numOrNull(o.updated_at),
    tables,
    chart,
    notes
  };
}

/**
 * Parse one published payload (the value of the MIME type in a bundle).
 *
 * Accepts the object or its JSON text. Returns `null` for anything that is not an
 * nbcompile record at all; unknown record kinds come back as `record: 'unknown'`.
 */
export function parsePayload(data: Json): Payload | null {
  let value = data;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (!isObject(value)) {
    return null;
  }
  const kind = str(value.record);
  const schemaVersion = num(value.schema_version, SCHEMA_VERSION);
  if (kind === 'summary' || (!kind && Array.isArray(value.targets))) {
    return {
      record: 'summary',
      schema_version: schemaVersion,
      cell: parseCellRef(value.cell),
      updated_at: numOrNull(value.updated_at),
      targets: nonNull(arr(value.targets).map(parseTarget))
    };
  }
  if (kind === 'target') {
    // A bare target record: treat as a one-target summary.
    const t = parseTarget(value);
    return t
      ? {
          record: 'summary',
          schema_version: schemaVersion,
          cell: t.cell,
          updated_at: null,
          targets: [t]
        }
      : null;
  }
  if (kind === 'timing') {
    return parseTiming(value);
  }
  return {
    record: 'unknown',
    kind: kind || '(none)',
    schema_version: schemaVersion,
    key: 'unknown:' + stableKey(value)
  };
}

// ---------------------------------------------------------------------------
// Small derived values shared by the sidebar and the inline renderer.
// ---------------------------------------------------------------------------

/** Generated kernels only (not extern calls nor the wrapper). */
export function generatedKernels(t: ITargetRecord): IKernel[] {
  return t.kernels.filter(k => k.kind === 'kernel');
}

/** Human words for a status. */
export function statusText(t: ITargetRecord, nowSeconds?: number): string {
  switch (t.status) {
    case 'pending':
      return 'waiting for first call';
    case 'compiling': {
      if (t.compiling_since && nowSeconds) {
        const s = Math.max(0, nowSeconds - t.compiling_since);
        if (s < 24 * 3600) {
          return `compiling… ${s.toFixed(0)}s`;
        }
      }
      return 'compiling…';
    }
    default:
      return t.status;
  }
}

/** `mode=max-autotune · fullgraph` style summary of the options. */
export function optionsText(o: ITargetOptions): string {
  const parts: string[] = [];
  parts.push(`mode=${o.mode ?? 'default'}`);
  if (o.backend && o.backend !== 'inductor') {
    parts.push(`backend=${o.backend}`);
  }
  if (o.fullgraph) {
    parts.push('fullgraph');
  }
  if (o.dynamic !== null) {
    parts.push(`dynamic=${o.dynamic ? 'True' : 'False'}`);
  }
  if (o.disable) {
    parts.push('disabled');
  }
  for (const [k, v] of Object.entries(o.options)) {
    parts.push(`${k}=${v}`);
  }
  for (const [k, v] of Object.entries(o.extra)) {
    parts.push(`${k}=${v}`);
  }
  return parts.join(' · ');
}

/** `1.1 kB` style size. */
export function formatSize(chars: number): string {
  if (chars < 1000) {
    return `${chars} B`;
  }
  if (chars < 1_000_000) {
    return `${(chars / 1000).toFixed(1)} kB`;
  }
  return `${(chars / 1_000_000).toFixed(1)} MB`;
}

/** `12.3 s` / `850 ms` style duration from seconds. */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) {
    return '';
  }
  if (s >= 1) {
    return `${s.toFixed(1)} s`;
  }
  if (s >= 0.001) {
    return `${(s * 1000).toFixed(0)} ms`;
  }
  return `${(s * 1e6).toFixed(0)} µs`;
}

/** The CodeMirror MIME type for a kernel language. */
export function editorMimeType(language: string): string {
  switch (language) {
    case 'cpp':
      return 'text/x-c++src';
    case 'triton':
    case 'python':
      return 'text/x-python';
    default:
      return 'text/plain';
  }
}

function nonNull<T>(xs: (T | null)[]): T[] {
  return xs.filter((x): x is T => x !== null);
}

/** A short deterministic key for a JSON value (FNV-1a of its text). */
function stableKey(v: Json): string {
  let text: string;
  try {
    text = JSON.stringify(v);
  } catch {
    text = String(v);
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16);
}
