/**
 * The view model: what the renderers read, parsed from a record (see ./records/parse).
 *
 * Every field is present and of its declared type whatever the record held; maps are
 * `Map`s (record strings never become object keys). The record's own wire types are
 * generated from the JSON Schema into ./generated/record.
 */

import type * as R from './generated/record';

/**
 * The view of a wire type `T` (./generated/record): its fields `K`, each present (the
 * parser fills a default where the record may omit one), plus `Over`, the fields the
 * view reads differently (`Map`s for record-keyed objects, plain strings for values a
 * newer kernel may extend, parsed sub-records).
 */
export type View<T, K extends keyof T, Over = object> = {
  [P in K]-?: Exclude<T[P], undefined>;
} & Over;

export const MIME_TYPE = 'application/vnd.nbcompile.v1+json';
/** The record schema version this extension reads. */
export const SCHEMA_VERSION = 1;

export type ISourceLine = View<
  R.SourceLine,
  'filename' | 'line',
  {
    lineno: number | null;
  }
>;

export type IGraphBreak = View<
  R.GraphBreak,
  | 'reason'
  | 'filename'
  | 'lineno'
  | 'line'
  | 'hint'
  | 'explanation'
  | 'gb_type'
  | 'compile_id'
  | 'gb_id'
  | 'doc_url'
  | 'hits',
  {
    /** Dynamo's user stack, outermost first (cell line, then library lines). */
    stack: ISourceLine[];
  }
>;

export type IRecompile = View<
  R.Recompile,
  'reason' | 'compile_id' | 'guard',
  {
    /** Execution count of the cell whose call recompiled (null: unknown). */
    cell: number | null;
    /** Execution counts of the cells that changed what the failed guard reads. */
    changed_by: number[];
    /** Those changes in words: `cell [7] set SCALE = 0.5`. */
    changes: string[];
  }
>;

export type IKernel = View<
  R.Kernel,
  'name' | 'source' | 'size' | 'compile_id',
  {
    /** `cpp`, `triton` or `python`; anything else is kept as given. */
    language: string;
    /** `kernel`, `extern` or `wrapper`; anything else is kept as given. */
    kind: string;
    /** The source lines it computes (Inductor's provenance), when known. */
    lines: ISourceLine[];
  }
>;

/** One source line of a target, marked with what became of it. */
export type IAnnotation = View<
  R.LineAnnotation,
  'line' | 'category' | 'kernel_refs' | 'reason',
  {
    lineno: number | null;
  }
>;

/** A kernel's code that changed between two compiles, as a unified diff. */
export type ICodeDiff = View<
  R.CodeDiff,
  'kernel' | 'compile_id' | 'previous_compile_id' | 'change' | 'cause' | 'diff'
>;

export type ICompile = View<
  R.CompileRecord,
  | 'compile_id'
  | 'frame'
  | 'error'
  | 'recompile_reason'
  | 'graphs'
  | 'graph_op_count'
  | 'guards'
  | 'guard_latency_s',
  {
    status: string;
    times: Map<string, number>;
    cache: Map<string, number>;
    /** Seconds per compile phase, in the record's order. */
    phases: Map<string, number>;
    /** The breaks this compile hit (Dynamo reports them again on every recompile). */
    graph_breaks: IGraphBreak[];
  }
>;

export type ITargetError = View<
  R.TargetError,
  'type' | 'message' | 'filename' | 'lineno' | 'line',
  {
    /** Dynamo's user stack, outermost first, as for graph breaks. */
    stack: ISourceLine[];
  }
>;

export type ICellRef = View<
  R.CellRef,
  'filename' | 'execution_count' | 'cell_id'
>;

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

export type ITargetRecord = View<
  R.TargetRecord,
  | 'id'
  | 'name'
  | 'status_text'
  | 'progress_text'
  | 'compiled_inside'
  | 'wrapper'
  | 'compiled_object'
  | 'notes'
  | 'compiling_since'
  | 'graph_count'
  | 'output_code'
  | 'compile_time_s'
  | 'truncated',
  {
    kind: string;
    options: ITargetOptions;
    status: string;
    cell: ICellRef;
    error: ITargetError | null;
    compiles: ICompile[];
    graph_breaks: IGraphBreak[];
    recompiles: IRecompile[];
    /** Every code piece: generated kernels, extern calls and the wrapper. */
    kernels: IKernel[];
    /** Kernels that run (kind `kernel`), the record's `kernel_count` meaning. */
    generated_kernel_count: number;
    /** Parts the published record left out to fit the output budget (the kernel has them). */
    omitted: IOmission[];
    /** torch's own log records from the target's compiles (kept out of stderr). */
    torch_logs: ITorchLog[];
    /** The target's source lines, each with what became of it. */
    annotations: IAnnotation[];
    code_diffs: ICodeDiff[];
    /** The torch.compiler.set_stance stance in force (`default` when not said). */
    stance: string;
  }
>;

export type ITorchLog = View<
  R.TorchLog,
  'level' | 'logger' | 'compile_id' | 'message'
>;

/** A part of a record cut from a published output: `count` `unit` of `field`, whole in `how`. */
export type IOmission = View<R.Omission, 'field' | 'count' | 'how' | 'unit'>;

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
export type ITraceCompile = View<
  R.TraceCompile,
  | 'rank'
  | 'compile_id'
  | 'frame'
  | 'function'
  | 'filename'
  | 'fail_reason'
  | 'compile_time_s'
  | 'log'
  | 'recompile_reason'
  | 'guards'
  | 'graphs'
  | 'output_code'
  | 'contents_omitted',
  {
    lineno: number | null;
    /** `compiled`, `failed`, `restarted` or `cache_hit`; anything else kept as given. */
    status: string;
    /** Exclusive phases from `compilation_metrics` (they add up: one stacked bar). */
    metric_phases: Map<string, number>;
    /** Those plus Dynamo's timed regions from the chromium events (nested). */
    phases: Map<string, number>;
    cache: Map<string, number>;
    /** The user stack that led to the compiled frame, outermost first. */
    stack: ISourceLine[];
    graph_breaks: IGraphBreak[];
    kernels: IKernel[];
  }
>;

/** Where the ranks of a job compiled differently. */
export type IDivergence = View<
  R.Divergence,
  'groups' | 'detail' | 'compile_id',
  {
    kind: string;
  }
>;

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
export type IKernelTime = View<
  R.KernelTime,
  | 'name'
  | 'kind'
  | 'calls'
  | 'total_s'
  | 'mean_s'
  | 'share'
  | 'compile_id'
  | 'stage'
  | 'lines'
  | 'allocated_bytes'
>;

/** One source line of a profiled target: seconds per call, compiled and eager. */
export type ILineTime = View<
  R.LineTime,
  | 'line'
  | 'compiled_s'
  | 'eager_s'
  | 'kernels'
  | 'speedup'
  | 'compiled_allocated_bytes'
  | 'eager_allocated_bytes',
  {
    lineno: number | null;
  }
>;

/** Bytes in use at one moment of one call. */
export type IMemoryPoint = View<R.MemoryPoint, 't_s' | 'bytes' | 'what'>;

/** The memory of one profiled call, compiled and eager (`Profile.memory`). */
export type IProfileMemory = View<
  R.ProfileMemory,
  | 'device'
  | 'peak_bytes'
  | 'eager_peak_bytes'
  | 'allocated_bytes'
  | 'eager_allocated_bytes'
  | 'saved_bytes'
  | 'eager_saved_bytes'
  | 'across_breaks_bytes'
  | 'outside_graphs_allocated_bytes'
  | 'note'
  | 'notes',
  {
    timeline: IMemoryPoint[];
    eager_timeline: IMemoryPoint[];
  }
>;

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
export type IMeasured = View<
  R.Measured,
  'graphs' | 'breaks' | 'recompiles' | 'time_s' | 'error' | 'timing_note'
>;

/** The break or recompile a suggestion addresses. */
export type IProblem = View<
  R.Problem,
  'kind' | 'reason' | 'filename' | 'lineno' | 'line' | 'in_library'
>;

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
export type IRung = View<
  R.Rung,
  | 'backend'
  | 'max_abs_diff'
  | 'mismatched'
  | 'numel'
  | 'error'
  | 'first_call_s'
  | 'time_s'
  | 'options'
  | 'note',
  {
    /** `dynamo`, `aot_autograd` or `inductor`: the layer this rung adds. */
    layer: string;
    /** `ok`, `accuracy`, `crash` or `not run`; anything else kept as given. */
    outcome: string;
  }
>;

/** What torch's CompilerBisector found. */
export type IBisection = View<
  R.Bisection,
  | 'backend'
  | 'subsystem'
  | 'bisect_number'
  | 'debug_info'
  | 'steps'
  | 'elapsed_s'
  | 'note'
>;

/** The float64 run: who is closer to it. */
export type IReference = View<
  R.Reference,
  | 'dtype'
  | 'eager_error'
  | 'compiled_error'
  | 'eager_mean_error'
  | 'compiled_mean_error'
  | 'note',
  {
    /** `eager`, `compiled` or `neither`. */
    closer: string;
  }
>;

/** A workaround tried on a copy, with its measured effect and cost. */
export type IWorkaround = View<
  R.Workaround,
  | 'kind'
  | 'change'
  | 'verified'
  | 'max_abs_diff'
  | 'mismatched'
  | 'numel'
  | 'first_call_s'
  | 'time_s'
  | 'cost'
  | 'reference_error'
  | 'error'
  | 'note',
  {
    /** `verified`, `tried, did not help` or `not tried`. */
    status: string;
    outcome: string;
  }
>;

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

/** The records listed below the targets: traces, profiles, suggestions, diagnoses,
 * compile times. */
export type IReportPayload =
  | ITracePayload
  | IProfilePayload
  | ISuggestionsPayload
  | IDiagnosisPayload
  | ICompileTimePayload;

/** A `"record": "compile_time"` payload (`nbcompile.compile_time` / `%compile_time`):
 * its parts are the schema-checked wire values. */
export interface ICompileTimePayload {
  record: 'compile_time';
  key: string;
  name: string;
  cold_s: number | null;
  warm_restart_s: number | null;
  where: R.Where;
  remedies: R.Remedy[];
  /** This kernel's compiles of the call's code, each compared with an earlier compile of
   * its frame (in this kernel, or in an earlier kernel of this notebook). */
  kernel_compiles: R.FrameTime[];
  /** Fresh processes run. */
  runs: number;
  elapsed_s: number;
  notes: string[];
  interrupted: boolean;
  truncated: boolean;
}

export type Payload =
  ISummaryPayload | ITimingPayload | IReportPayload | IUnknownPayload;
