/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs.
 * Do not edit: run `npm run gen:types`. Read by ../records/coerce.ts (`present`) and
 * the view model, ../model/ (`View`). */

import type * as R from './record';

/** Each record object of the schema (its `$defs`), by name: its wire type. */
export interface IWire {
  SummaryRecord: R.SummaryRecord;
  CellRef: R.CellRef;
  TargetRecord: R.TargetRecord;
  TargetError: R.TargetError;
  SourceLine: R.SourceLine;
  CompileRecord: R.CompileRecord;
  Kernel: R.Kernel;
  GraphBreak: R.GraphBreak;
  CudagraphOutcome: R.CudagraphOutcome;
  CudagraphPartitions: R.CudagraphPartitions;
  CudagraphPartitionNode: R.CudagraphPartitionNode;
  RunsAs: R.RunsAs;
  RunStep: R.RunStep;
  FailedVersion: R.FailedVersion;
  Recompile: R.Recompile;
  LineAnnotation: R.LineAnnotation;
  CodeDiff: R.CodeDiff;
  Advice: R.Advice;
  Omission: R.Omission;
  TorchLog: R.TorchLog;
  CompileProgress: R.CompileProgress;
  EagerRuns: R.EagerRuns;
  CudagraphCall: R.CudagraphCall;
  CudagraphRerecord: R.CudagraphRerecord;
  CudagraphShape: R.CudagraphShape;
  CudagraphShapes: R.CudagraphShapes;
  CudagraphHazard: R.CudagraphHazard;
  CudagraphHazardName: R.CudagraphHazardName;
  Comparison: R.Comparison;
  TimingRow: R.TimingRow;
  Explanation: R.Explanation;
  Profile: R.Profile;
  KernelTime: R.KernelTime;
  LineTime: R.LineTime;
  ProfileMemory: R.ProfileMemory;
  MemoryPoint: R.MemoryPoint;
  Suggestions: R.Suggestions;
  Measured: R.Measured;
  Problem: R.Problem;
  Suggestion: R.Suggestion;
  SameResult: R.SameResult;
  TraceRecord: R.TraceRecord;
  TraceCompile: R.TraceCompile;
  Divergence: R.Divergence;
  Diagnosis: R.Diagnosis;
  Rung: R.Rung;
  Bisection: R.Bisection;
  Reference: R.Reference;
  Workaround: R.Workaround;
  CompileTime: R.CompileTime;
  Where: R.Where;
  FrameTime: R.FrameTime;
  CacheOutcome: R.CacheOutcome;
  KeyChange: R.KeyChange;
  EarlierCompile: R.EarlierCompile;
  RepeatedBlock: R.RepeatedBlock;
  Remedy: R.Remedy;
  FreshRun: R.FreshRun;
}

/** The fields of `T` a record may lack. */
export type OptionalKeys<T> = {
  [K in keyof T]-?: object extends Pick<T, K> ? K : never;
}[keyof T];

/** An object keyed by record strings (`{ [k: string]: V }`) as a `Map`; else as it is. */
export type AsMap<V> = V extends readonly unknown[]
  ? V
  : V extends object
    ? string extends keyof V
      ? V extends { [k: string]: infer E }
        ? Map<string, E>
        : V
      : V
    : V;

/** The fields of `T` read as `Map`s. */
export type MapKeys<T> = {
  [K in keyof T]-?: AsMap<Exclude<T[K], undefined | null>> extends Map<string, unknown> ? K : never;
}[keyof T];

/** A wire type with every field present (an absent one: its default) and its maps
 * `Map`s: what `present` (../records/coerce.ts) makes of a checked record object. */
export type Present<T> = { [K in keyof T]-?: AsMap<Exclude<T[K], undefined>> };

/**
 * The view of wire type `T` (the view model, ../model/): every field of `T` present (as
 * `Present`), but those in `Over` as `Over` says (parsed sub-records, plain strings
 * for values a newer kernel may extend, fields the view adds). Only `Over` is written by
 * hand.
 */
export type View<T, Over = object> = Omit<Present<T>, keyof Over> & Over;

/** How one record object is read: its fields (the schema's order), the default of
 * each field a record may lack, the fields read as `Map`s. */
export interface IFields<T> {
  fields: readonly (keyof T & string)[];
  defaults: { [K in OptionalKeys<T>]-?: Exclude<T[K], undefined> };
  maps: readonly MapKeys<T>[];
}

export const FIELDS: { [N in keyof IWire]: IFields<IWire[N]> } = {
  SummaryRecord: {
    fields: ['cell', 'updated_at', 'targets', 'schema_version', 'record'],
    defaults: {},
    maps: []
  },
  CellRef: {
    fields: ['filename', 'execution_count', 'cell_id'],
    defaults: { filename: '', execution_count: null, cell_id: null },
    maps: []
  },
  TargetRecord: {
    fields: [
      'id',
      'name',
      'kind',
      'options',
      'status',
      'wrapper',
      'compiled_object',
      'cell',
      'notes',
      'error',
      'compiling_since',
      'compiles',
      'graph_count',
      'graph_breaks',
      'recompiles',
      'kernels',
      'output_code',
      'compile_time_s',
      'annotations',
      'no_kernel_lines',
      'code_diffs',
      'advice',
      'preview',
      'omitted',
      'schema_version',
      'record',
      'torch_logs',
      'compiled_inside',
      'progress',
      'stance',
      'eager_runs',
      'cudagraph_calls',
      'cudagraph_shapes',
      'cudagraph_hazards',
      'graph_break_count',
      'cell_names',
      'recompile_count',
      'kernel_count',
      'code_piece_count',
      'truncated',
      'status_text',
      'progress_text'
    ],
    defaults: {
      annotations: [],
      no_kernel_lines: '',
      code_diffs: [],
      advice: [],
      preview: '',
      omitted: [],
      torch_logs: [],
      compiled_inside: '',
      progress: null,
      stance: 'default',
      eager_runs: [],
      cudagraph_calls: [],
      cudagraph_shapes: null,
      cudagraph_hazards: [],
      cell_names: {},
      code_piece_count: 0,
      truncated: false,
      status_text: '',
      progress_text: ''
    },
    maps: ['options', 'cell_names']
  },
  TargetError: {
    fields: ['type', 'message', 'filename', 'lineno', 'line', 'hint', 'stack'],
    defaults: { stack: [] },
    maps: []
  },
  SourceLine: {
    fields: ['filename', 'lineno', 'line'],
    defaults: {},
    maps: []
  },
  CompileRecord: {
    fields: [
      'compile_id',
      'frame',
      'filename',
      'firstlineno',
      'status',
      'error',
      'recompile_reason',
      'recompile_guard',
      'graphs',
      'graph_op_count',
      'guards',
      'output_code',
      'output_code_path',
      'kernels',
      'post_grad_graphs',
      'graph_breaks',
      'times',
      'cache',
      'started_at',
      'recompile_limit',
      'phases',
      'guard_latency_s',
      'restart_s',
      'chromium_events',
      'cudagraphs',
      'cell',
      'changed_by',
      'changes',
      'runs_as',
      'failed_versions',
      'label',
      'code'
    ],
    defaults: {
      recompile_guard: '',
      post_grad_graphs: [],
      recompile_limit: 0,
      phases: {},
      guard_latency_s: null,
      restart_s: null,
      chromium_events: [],
      cudagraphs: null,
      cell: null,
      changed_by: [],
      changes: [],
      runs_as: null,
      failed_versions: [],
      label: '',
      code: ''
    },
    maps: ['times', 'cache', 'phases']
  },
  Kernel: {
    fields: [
      'name',
      'language',
      'source',
      'kind',
      'size',
      'compile_id',
      'ops',
      'lines',
      'stage',
      'handle',
      'nodes',
      'compile_time_s',
      'compile_label'
    ],
    defaults: { stage: '', handle: '', nodes: [], compile_time_s: null, compile_label: '' },
    maps: []
  },
  GraphBreak: {
    fields: [
      'reason',
      'filename',
      'lineno',
      'line',
      'hint',
      'explanation',
      'gb_type',
      'compile_id',
      'stack',
      'gb_id',
      'doc_url',
      'stack_dropped',
      'hits',
      'runs_as'
    ],
    defaults: { stack: [], gb_id: '', doc_url: '', stack_dropped: 0, hits: 0, runs_as: '' },
    maps: []
  },
  CudagraphOutcome: {
    fields: [
      'status',
      'reason',
      'line',
      'cell',
      'messages',
      'partitions',
      'partitions_unknown',
      'text'
    ],
    defaults: {
      reason: '',
      line: null,
      cell: null,
      messages: [],
      partitions: null,
      partitions_unknown: '',
      text: ''
    },
    maps: []
  },
  CudagraphPartitions: {
    fields: ['partitions', 'cudagraphable', 'outside'],
    defaults: {},
    maps: []
  },
  CudagraphPartitionNode: {
    fields: ['node', 'reason', 'fx', 'line', 'cell'],
    defaults: { fx: '', line: null, cell: null },
    maps: []
  },
  RunsAs: {
    fields: ['source', 'steps', 'walk', 'dis', 'problem'],
    defaults: { source: '', steps: [], walk: '', dis: '', problem: '' },
    maps: []
  },
  RunStep: {
    fields: ['kind', 'text', 'graph', 'lineno', 'frame', 'inner', 'alternative'],
    defaults: { graph: null, lineno: null, frame: '', inner: null, alternative: false },
    maps: []
  },
  FailedVersion: {
    fields: ['compile_id', 'guard', 'cell'],
    defaults: {},
    maps: []
  },
  Recompile: {
    fields: [
      'reason',
      'compile_id',
      'guard',
      'frame',
      'cell',
      'changed_by',
      'changes',
      'failed_versions',
      'text'
    ],
    defaults: { frame: '', cell: null, changed_by: [], changes: [], failed_versions: [], text: '' },
    maps: []
  },
  LineAnnotation: {
    fields: [
      'filename',
      'lineno',
      'line',
      'category',
      'kernels',
      'externs',
      'kernel_refs',
      'ops',
      'reason'
    ],
    defaults: {},
    maps: []
  },
  CodeDiff: {
    fields: [
      'kernel',
      'compile_id',
      'previous_compile_id',
      'previous_kernel',
      'stage',
      'language',
      'change',
      'cause',
      'diff',
      'added',
      'removed'
    ],
    defaults: {},
    maps: []
  },
  Advice: {
    fields: ['kind', 'message', 'fix'],
    defaults: {},
    maps: []
  },
  Omission: {
    fields: ['field', 'count', 'how', 'unit'],
    defaults: {},
    maps: []
  },
  TorchLog: {
    fields: ['level', 'logger', 'compile_id', 'message'],
    defaults: {},
    maps: []
  },
  CompileProgress: {
    fields: [
      'compile_id',
      'frame',
      'filename',
      'lineno',
      'phase',
      'elapsed_s',
      'phase_seconds',
      'kernels_total',
      'kernels_done',
      'kernel_language'
    ],
    defaults: {},
    maps: ['phase_seconds']
  },
  EagerRuns: {
    fields: ['stance', 'count', 'cells'],
    defaults: {},
    maps: []
  },
  CudagraphCall: {
    fields: [
      'call',
      'cell',
      'warmups',
      'recordings',
      'replays',
      'eager',
      'rerecords',
      'new_shapes',
      'fell_back',
      'pool_before',
      'pool_after',
      'pool_source',
      'what',
      'backward'
    ],
    defaults: {
      cell: null,
      warmups: 0,
      recordings: 0,
      replays: 0,
      eager: 0,
      rerecords: [],
      new_shapes: [],
      fell_back: '',
      pool_before: null,
      pool_after: null,
      pool_source: '',
      what: '',
      backward: false
    },
    maps: []
  },
  CudagraphRerecord: {
    fields: ['compile_id', 'reason', 'inputs', 'line'],
    defaults: { inputs: [], line: '' },
    maps: []
  },
  CudagraphShape: {
    fields: ['compile_id', 'key', 'cell'],
    defaults: { cell: null },
    maps: []
  },
  CudagraphShapes: {
    fields: ['shapes', 'warn_limit', 'warn_limit_config', 'remedy'],
    defaults: { warn_limit: null, warn_limit_config: '', remedy: '' },
    maps: []
  },
  CudagraphHazard: {
    fields: ['kind', 'cell', 'names', 'gradient', 'text'],
    defaults: { names: [], gradient: false, text: '' },
    maps: []
  },
  CudagraphHazardName: {
    fields: ['name', 'bound_in', 'by'],
    defaults: { bound_in: null, by: '' },
    maps: []
  },
  Comparison: {
    fields: [
      'name',
      'rows',
      'device',
      'num_threads',
      'budget_s',
      'elapsed_s',
      'phases_s',
      'memory_measured',
      'min_effect',
      'inputs',
      'environment',
      'created_at',
      'notes',
      'confidence',
      'min_verdict_repeats',
      'max_ci_ratio',
      'mutated_inputs',
      'random_ops',
      'captured_output_lines',
      'interrupted',
      'schema_version',
      'record',
      'best'
    ],
    defaults: {
      phases_s: {},
      memory_measured: false,
      confidence: 0.95,
      min_verdict_repeats: 10,
      max_ci_ratio: 1.5,
      mutated_inputs: [],
      random_ops: false,
      captured_output_lines: 0,
      interrupted: false
    },
    maps: ['phases_s', 'environment']
  },
  TimingRow: {
    fields: [
      'mode',
      'kind',
      'backend',
      'status',
      'error',
      'first_call_s',
      'compile_s',
      'median_s',
      'q1_s',
      'q3_s',
      'iqr_s',
      'repeats',
      'calls_per_repeat',
      'speedup',
      'speedup_q1',
      'speedup_q3',
      'speedup_ci_low',
      'speedup_ci_high',
      'significant',
      'spreads_overlap',
      'verdict',
      'max_abs_diff',
      'numerics_ok',
      'tolerance',
      'peak_memory_bytes',
      'memory_note',
      'allocated_bytes',
      'peak_memory_ratio',
      'memory_verdict',
      'saved_bytes',
      'held_bytes',
      'cache',
      'notes',
      'times_s',
      'explanations',
      'memory_explanations'
    ],
    defaults: {
      speedup_ci_low: null,
      speedup_ci_high: null,
      allocated_bytes: null,
      peak_memory_ratio: null,
      memory_verdict: '',
      saved_bytes: null,
      held_bytes: null,
      explanations: [],
      memory_explanations: []
    },
    maps: ['cache']
  },
  Explanation: {
    fields: ['kind', 'message', 'evidence', 'lines'],
    defaults: {},
    maps: ['evidence']
  },
  Profile: {
    fields: [
      'name',
      'repeat',
      'kernels',
      'lines',
      'filename',
      'wall_s',
      'kernel_s',
      'outside_graphs_s',
      'overhead_s',
      'unaccounted_s',
      'untied_s',
      'eager_wall_s',
      'eager_untied_s',
      'accounted',
      'compiles',
      'recompiles_during_profile',
      'notes',
      'graph_breaks',
      'memory',
      'interrupted',
      'schema_version',
      'record',
      'cell_names',
      'truncated',
      'omitted'
    ],
    defaults: {
      graph_breaks: [],
      memory: null,
      interrupted: false,
      cell_names: {},
      truncated: false,
      omitted: []
    },
    maps: ['cell_names']
  },
  KernelTime: {
    fields: [
      'name',
      'kind',
      'calls',
      'total_s',
      'mean_s',
      'share',
      'compile_id',
      'stage',
      'event',
      'lines',
      'allocated_bytes'
    ],
    defaults: { allocated_bytes: 0 },
    maps: []
  },
  LineTime: {
    fields: [
      'lineno',
      'line',
      'compiled_s',
      'eager_s',
      'kernels',
      'compiled_allocated_bytes',
      'eager_allocated_bytes',
      'compiled_backward_s',
      'speedup'
    ],
    defaults: { compiled_allocated_bytes: 0, eager_allocated_bytes: 0, compiled_backward_s: 0 },
    maps: []
  },
  ProfileMemory: {
    fields: [
      'device',
      'peak_bytes',
      'eager_peak_bytes',
      'allocated_bytes',
      'eager_allocated_bytes',
      'outside_graphs_allocated_bytes',
      'untied_allocated_bytes',
      'eager_untied_allocated_bytes',
      'saved_bytes',
      'eager_saved_bytes',
      'across_breaks_bytes',
      'timeline',
      'eager_timeline',
      'note',
      'notes'
    ],
    defaults: {},
    maps: []
  },
  MemoryPoint: {
    fields: ['t_s', 'bytes', 'what'],
    defaults: {},
    maps: []
  },
  Suggestions: {
    fields: [
      'name',
      'baseline',
      'problems',
      'items',
      'calls',
      'budget_s',
      'elapsed_s',
      'notes',
      'interrupted',
      'schema_version',
      'record',
      'cell_names'
    ],
    defaults: { interrupted: false, cell_names: {} },
    maps: ['cell_names']
  },
  Measured: {
    fields: ['graphs', 'breaks', 'recompiles', 'time_s', 'error', 'timing_note'],
    defaults: {},
    maps: []
  },
  Problem: {
    fields: ['kind', 'reason', 'filename', 'lineno', 'line', 'in_library'],
    defaults: {},
    maps: []
  },
  Suggestion: {
    fields: ['problem', 'kind', 'change', 'verified', 'status', 'after', 'same_result', 'note'],
    defaults: {},
    maps: []
  },
  SameResult: {
    fields: ['ok', 'max_abs_diff', 'tolerance', 'notes'],
    defaults: {},
    maps: []
  },
  TraceRecord: {
    fields: [
      'path',
      'ranks',
      'compiles',
      'problems',
      'files',
      'unknown_events',
      'events',
      'bytes_read',
      'interrupted',
      'schema_version',
      'record',
      'divergences',
      'truncated',
      'omitted'
    ],
    defaults: { bytes_read: 0, interrupted: false, truncated: false, omitted: [] },
    maps: ['unknown_events']
  },
  TraceCompile: {
    fields: [
      'rank',
      'compile_id',
      'frame',
      'function',
      'filename',
      'lineno',
      'status',
      'fail_reason',
      'compile_time_s',
      'metric_phases',
      'cache',
      'stack',
      'log',
      'phases',
      'graph_breaks',
      'recompile_reason',
      'recompile_guard',
      'guards',
      'graphs',
      'kernels',
      'output_code',
      'collectives',
      'runs_as',
      'contents_omitted'
    ],
    defaults: { runs_as: null, contents_omitted: false },
    maps: ['metric_phases', 'cache', 'phases']
  },
  Divergence: {
    fields: ['kind', 'groups', 'detail', 'compile_id'],
    defaults: {},
    maps: []
  },
  Diagnosis: {
    fields: [
      'name',
      'kind',
      'layer',
      'summary',
      'rungs',
      'culprit',
      'filename',
      'lineno',
      'line',
      'bisection',
      'max_abs_diff',
      'mismatched',
      'numel',
      'tolerance',
      'error',
      'error_detail',
      'reference',
      'workarounds',
      'inputs',
      'options',
      'eager_time_s',
      'compiled_time_s',
      'budget_s',
      'elapsed_s',
      'skipped',
      'notes',
      'matmul_precision',
      'truncated',
      'interrupted',
      'schema_version',
      'record',
      'cell_names'
    ],
    defaults: { matmul_precision: [], interrupted: false, cell_names: {} },
    maps: ['cell_names']
  },
  Rung: {
    fields: [
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
    ],
    defaults: {},
    maps: []
  },
  Bisection: {
    fields: ['backend', 'subsystem', 'bisect_number', 'debug_info', 'steps', 'elapsed_s', 'note'],
    defaults: {},
    maps: []
  },
  Reference: {
    fields: [
      'dtype',
      'eager_error',
      'compiled_error',
      'eager_mean_error',
      'compiled_mean_error',
      'closer',
      'note'
    ],
    defaults: {},
    maps: []
  },
  Workaround: {
    fields: [
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
    ],
    defaults: {},
    maps: []
  },
  CompileTime: {
    fields: [
      'name',
      'cold_s',
      'warm_restart_s',
      'steady_s',
      'where',
      'remedies',
      'runs',
      'kernel_compiles',
      'how',
      'reproducible',
      'budget_s',
      'elapsed_s',
      'inputs',
      'environment',
      'created_at',
      'notes',
      'interrupted',
      'truncated',
      'schema_version',
      'record'
    ],
    defaults: {},
    maps: ['environment']
  },
  Where: {
    fields: ['total_s', 'phases', 'frames', 'recompile_s', 'repeated', 'caches'],
    defaults: {},
    maps: ['phases', 'caches']
  },
  FrameTime: {
    fields: [
      'compile_id',
      'frame',
      'filename',
      'lineno',
      'seconds',
      'phases',
      'graph_op_count',
      'recompile',
      'recompile_reason',
      'caches',
      'key_changes',
      'cache_note',
      'earlier'
    ],
    defaults: { earlier: null },
    maps: ['phases']
  },
  CacheOutcome: {
    fields: ['layer', 'outcome', 'detail', 'reason', 'key', 'time_saved_s'],
    defaults: {},
    maps: []
  },
  KeyChange: {
    fields: ['layer', 'component', 'kind', 'words', 'before', 'after'],
    defaults: {},
    maps: []
  },
  EarlierCompile: {
    fields: ['saved_at', 'compile_id', 'same_cell', 'same_key', 'words'],
    defaults: {},
    maps: []
  },
  RepeatedBlock: {
    fields: ['path', 'cls', 'count', 'traced_copies', 'node_share', 'dynamo_s', 'inductor_s'],
    defaults: {},
    maps: []
  },
  Remedy: {
    fields: [
      'kind',
      'change',
      'status',
      'verified',
      'cold_s',
      'restart_s',
      'steady_ratio',
      'same_result',
      'max_abs_diff',
      'note',
      'rounds_before_s',
      'rounds_after_s',
      'cut',
      'cut_low',
      'cut_high'
    ],
    defaults: { rounds_before_s: [], rounds_after_s: [], cut: null, cut_low: null, cut_high: null },
    maps: []
  },
  FreshRun: {
    fields: [
      'label',
      'status',
      'error',
      'first_call_s',
      'steady_s',
      'wall_s',
      'frames_compiled',
      'graph_ops',
      'caches',
      'same_result',
      'max_abs_diff'
    ],
    defaults: {},
    maps: ['caches']
  }
};
