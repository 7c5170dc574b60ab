/**
 * The view model: what the renderers read, parsed from a record (see ./parse).
 *
 * Every field is present and of its declared type whatever the record held; maps are
 * `Map`s (record strings never become object keys). The record's own wire types are
 * generated from the JSON Schema into ./generated/record.
 */

export const MIME_TYPE = 'application/vnd.nbcompile.v1+json';
/** The record schema version this extension reads. */
export const SCHEMA_VERSION = 1;

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
}

export interface ICompile {
  compile_id: string;
  frame: string;
  status: string;
  error: string;
  recompile_reason: string;
  graphs: string[];
  graph_op_count: number;
  guards: string;
  times: Map<string, number>;
  cache: Map<string, number>;
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
  options: Map<string, string>;
  /** Any other option keys, as display strings. */
  extra: Map<string, string>;
}

export interface ITargetRecord {
  id: string;
  name: string;
  kind: string;
  options: ITargetOptions;
  status: string;
  /** With status `compiled_inside`: the target whose graph this module ran in. */
  compiled_inside: string;
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
  /** Every code piece: generated kernels, extern calls and the wrapper. */
  kernels: IKernel[];
  /** Kernels that run (kind `kernel`), the record's `kernel_count` meaning. */
  generated_kernel_count: number;
  output_code: string;
  compile_time_s: number;
  truncated: boolean;
  /** Parts the published record left out to fit the output budget (the kernel has them). */
  omitted: IOmission[];
}

/** A part of a record cut from a published output: `count` `unit` of `field`, whole in `how`. */
export interface IOmission {
  field: string;
  count: number;
  how: string;
  unit: string;
}

/** A `"record": "summary"` payload: the targets of one `%%compile` cell (or report). */
export interface ISummaryPayload {
  record: 'summary';
  cell: ICellRef;
  updated_at: number | null;
  targets: ITargetRecord[];
}

export type TableCell = string | number | boolean | null;

/** One table of a timing payload: column names and display-ready cells. */
export interface ITable {
  title: string;
  columns: string[];
  rows: TableCell[][];
}

/** A `"record": "timing"` payload (`nbcompile.compare` / `%compare`). */
export interface ITimingPayload {
  record: 'timing';
  /** Stable key used to de-duplicate the same record seen twice. */
  key: string;
  title: string;
  updated_at: number | null;
  tables: ITable[];
  /** Bars for a chart: label and value (e.g. speedup per mode). */
  chart: { label: string; value: number; unit: string }[];
  notes: string[];
}

/** A record this version does not show: kept so the UI can say so, never interpreted. */
export interface IUnknownPayload {
  record: 'unknown';
  kind: string;
  key: string;
  /** Why it is not shown (unknown kind, other schema version, failed validation). */
  reason: string;
}

export type Payload = ISummaryPayload | ITimingPayload | IUnknownPayload;
