/**
 * The view model: what the renderers read, parsed from a record (see ./records/parse).
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
  /** Dynamo's graph-break id (`GB0170`) and its documentation page (https only). */
  gb_id: string;
  doc_url: string;
  /** Compiles of the target that hit this break, as the kernel counted them (1 when not published). */
  hits: number;
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
  /** The source lines it computes (Inductor's provenance), when known. */
  lines: ISourceLine[];
}

/** One source line of a target, marked with what became of it. */
export interface IAnnotation {
  lineno: number | null;
  line: string;
  /** kernel | extern | graph_break | error | traced | python | outside | blank | ... */
  category: string;
  /** Indexes into the target's `kernels`. */
  kernel_refs: number[];
  reason: string;
}

/** A kernel's code that changed between two compiles, as a unified diff. */
export interface ICodeDiff {
  kernel: string;
  compile_id: string;
  previous_compile_id: string;
  change: string;
  cause: string;
  diff: string;
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
  /** Seconds per compile phase, in the record's order. */
  phases: Map<string, number>;
  /** The breaks this compile hit (Dynamo reports them again on every recompile). */
  graph_breaks: IGraphBreak[];
  guard_latency_s: number | null;
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
  /** The status in words, as the kernel publishes it (`status_text`). */
  status_text: string;
  /** While compiling: the step, the frame and the steps so far, as the kernel words them. */
  progress_text: string;
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
  /** torch's own log records from the target's compiles (kept out of stderr). */
  torch_logs: ITorchLog[];
  /** The target's source lines, each with what became of it. */
  annotations: IAnnotation[];
  code_diffs: ICodeDiff[];
}

export interface ITorchLog {
  level: string;
  logger: string;
  compile_id: string;
  message: string;
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
  /** Peak memory of one call per row (bytes), eager included; empty when not measured. */
  memoryChart: { label: string; value: number; unit: string }[];
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

/** One compile read from a TORCH_TRACE log (`nbcompile.open_trace`). */
export interface ITraceCompile {
  rank: number | null;
  compile_id: string;
  frame: string;
  function: string;
  filename: string;
  lineno: number | null;
  /** `compiled`, `failed`, `restarted` or `cache_hit`; anything else kept as given. */
  status: string;
  fail_reason: string;
  compile_time_s: number;
  /** Exclusive phases from `compilation_metrics` (they add up: one stacked bar). */
  metric_phases: Map<string, number>;
  /** Those plus Dynamo's timed regions from the chromium events (nested). */
  phases: Map<string, number>;
  cache: Map<string, number>;
  /** The user stack that led to the compiled frame, outermost first. */
  stack: ISourceLine[];
  /** `file:line` of the compile's first event in the log. */
  log: string;
  graph_breaks: IGraphBreak[];
  recompile_reason: string;
  guards: string;
  graphs: string[];
  kernels: IKernel[];
  output_code: string;
  /** Published without its contents (the output's byte budget); the kernel has them. */
  contents_omitted: boolean;
}

/** Where the ranks of a job compiled differently. */
export interface IDivergence {
  kind: string;
  /** Ranks that agree with each other, one list per variant. */
  groups: number[][];
  detail: string;
  compile_id: string;
}

/** A `"record": "trace"` payload: a TORCH_TRACE log or directory, every rank. */
export interface ITracePayload {
  record: 'trace';
  key: string;
  path: string;
  ranks: number[];
  compiles: ITraceCompile[];
  divergences: IDivergence[];
  problems: string[];
  files: string[];
  unknown_events: Map<string, number>;
  events: number;
  bytes_read: number;
  /** Ctrl-C stopped the reading: only the files read whole are in (problems[0] says). */
  interrupted: boolean;
  truncated: boolean;
  /** Parts left out to fit the output budget (compiles, compiles' contents). */
  omitted: IOmission[];
}

/** One kernel (or extern op) of a profile: measured launches and time. */
export interface IKernelTime {
  name: string;
  kind: string;
  calls: number;
  total_s: number;
  mean_s: number;
  share: number;
  compile_id: string;
  stage: string;
  lines: number[];
  /** Bytes allocated in one call for the buffers it writes (0 when not measured). */
  allocated_bytes: number;
}

/** One source line of a profiled target: seconds per call, compiled and eager. */
export interface ILineTime {
  lineno: number | null;
  line: string;
  compiled_s: number;
  eager_s: number;
  kernels: string[];
  speedup: number | null;
  /** Bytes allocated on the line in one call, compiled (its kernels) and eager. */
  compiled_allocated_bytes: number;
  eager_allocated_bytes: number;
}

/** Bytes in use at one moment of one call. */
export interface IMemoryPoint {
  t_s: number;
  bytes: number;
  what: string;
}

/** The memory of one profiled call, compiled and eager (`Profile.memory`). */
export interface IProfileMemory {
  device: string;
  peak_bytes: number | null;
  eager_peak_bytes: number | null;
  allocated_bytes: number | null;
  eager_allocated_bytes: number | null;
  saved_bytes: number | null;
  eager_saved_bytes: number | null;
  across_breaks_bytes: number;
  outside_graphs_allocated_bytes: number;
  timeline: IMemoryPoint[];
  eager_timeline: IMemoryPoint[];
  note: string;
  notes: string[];
}

/** A `"record": "profile"` payload (`nbcompile.profile` / `%kprun`). */
export interface IProfilePayload {
  record: 'profile';
  key: string;
  name: string;
  repeat: number;
  filename: string;
  wall_s: number;
  kernel_s: number;
  outside_graphs_s: number;
  overhead_s: number;
  unaccounted_s: number;
  untied_s: number;
  eager_wall_s: number;
  accounted: boolean;
  kernels: IKernelTime[];
  lines: ILineTime[];
  notes: string[];
  graph_breaks: IGraphBreak[];
  compiles: string[];
  recompiles_during_profile: number;
  /** Peak and allocated bytes of one call, bytes per line and kernel, a timeline; null: not measured. */
  memory: IProfileMemory | null;
  /** Set when the published copy left kernels or lines out (see `omitted`). */
  truncated: boolean;
  omitted: IOmission[];
}

/** Counts and time of one setup (the baseline or a suggestion tried on a copy). */
export interface IMeasured {
  graphs: number;
  breaks: number;
  recompiles: number;
  time_s: number | null;
  error: string;
  timing_note: string;
}

/** The break or recompile a suggestion addresses. */
export interface IProblem {
  kind: string;
  reason: string;
  filename: string | null;
  lineno: number | null;
  line: string;
  in_library: boolean;
}

export interface ISuggestion {
  problem: IProblem;
  kind: string;
  /** The exact change, as code (a setting, a flag, or `- old` / `+ new` lines). */
  change: string;
  verified: boolean;
  status: string;
  after: IMeasured | null;
  /** The numeric check against the original: `ok` null when not checked. */
  same: {
    ok: boolean | null;
    max_abs_diff: number | null;
    tolerance: string;
    notes: string[];
  };
  note: string;
}

/** A `"record": "suggestions"` payload (`nbcompile.suggest` / `%suggest`). */
export interface ISuggestionsPayload {
  record: 'suggestions';
  key: string;
  name: string;
  baseline: IMeasured;
  problems: IProblem[];
  items: ISuggestion[];
  calls: number;
  budget_s: number;
  elapsed_s: number;
  notes: string[];
}

/** One rung of a diagnosis's ladder: a copy compiled with one backend, judged against eager. */
export interface IRung {
  backend: string;
  /** `dynamo`, `aot_autograd` or `inductor`: the layer this rung adds. */
  layer: string;
  /** `ok`, `accuracy`, `crash` or `not run`; anything else kept as given. */
  outcome: string;
  max_abs_diff: number | null;
  mismatched: number | null;
  numel: number;
  error: string;
  first_call_s: number | null;
  time_s: number | null;
  options: string;
  note: string;
}

/** What torch's CompilerBisector found. */
export interface IBisection {
  backend: string;
  subsystem: string;
  bisect_number: number | null;
  debug_info: string;
  steps: number;
  elapsed_s: number;
  note: string;
}

/** The float64 run: who is closer to it. */
export interface IReference {
  dtype: string;
  eager_error: number | null;
  compiled_error: number | null;
  eager_mean_error: number | null;
  compiled_mean_error: number | null;
  /** `eager`, `compiled` or `neither`. */
  closer: string;
  note: string;
}

/** A workaround tried on a copy, with its measured effect and cost. */
export interface IWorkaround {
  kind: string;
  change: string;
  verified: boolean;
  /** `verified`, `tried, did not help` or `not tried`. */
  status: string;
  outcome: string;
  max_abs_diff: number | null;
  mismatched: number | null;
  numel: number;
  first_call_s: number | null;
  time_s: number | null;
  cost: string;
  /** Largest abs difference of the changed copy's result to the float64 run. */
  reference_error: number | null;
  error: string;
  note: string;
}

/** A `"record": "diagnosis"` payload (`nbcompile.diagnose` / `%diagnose`). */
export interface IDiagnosisPayload {
  record: 'diagnosis';
  key: string;
  name: string;
  /** `crash`, `accuracy` or `ok`. */
  kind: string;
  /** `dynamo`, `aot_autograd`, `inductor`, or null when not known. */
  layer: string | null;
  /** The verdict in words, as the kernel words it. */
  summary: string;
  rungs: IRung[];
  culprit: string;
  filename: string | null;
  lineno: number | null;
  line: string;
  bisection: IBisection | null;
  max_abs_diff: number | null;
  mismatched: number | null;
  numel: number;
  tolerance: string;
  error: string;
  error_detail: string;
  reference: IReference | null;
  workarounds: IWorkaround[];
  inputs: string[];
  options: string;
  eager_time_s: number | null;
  compiled_time_s: number | null;
  budget_s: number;
  elapsed_s: number;
  skipped: string[];
  notes: string[];
  /** Texts were cut from the published copy (the kernel's `Diagnosis` has them whole). */
  truncated: boolean;
}

/** The records listed below the targets: traces, profiles, suggestions, diagnoses. */
export type IReportPayload =
  ITracePayload | IProfilePayload | ISuggestionsPayload | IDiagnosisPayload;

export type Payload =
  ISummaryPayload | ITimingPayload | IReportPayload | IUnknownPayload;
