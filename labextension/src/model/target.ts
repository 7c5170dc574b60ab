/**
 * The view of a live target record (`%%compile`, `nbcompile.compile`) and of the
 * summary that carries a cell's targets: compiles, recompiles, errors, options, logs,
 * annotated source lines and code diffs.
 */

import type * as R from '../generated/record';
import type {
  CellNames,
  IGraphBreak,
  IKernel,
  IOmission,
  IRunsAs,
  ISourceLine,
  View
} from './parts';

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
  | 'filename'
  | 'error'
  | 'recompile_reason'
  | 'graphs'
  | 'graph_op_count'
  | 'guards'
  | 'guard_latency_s'
  | 'label',
  {
    status: string;
    times: Map<string, number>;
    cache: Map<string, number>;
    /** Seconds per compile phase, in the record's order. */
    phases: Map<string, number>;
    /** The breaks this compile hit (Dynamo reports them again on every recompile). */
    graph_breaks: IGraphBreak[];
    /** What torch did about CUDA graphs for it; null: not asked for, or nothing said. */
    cudagraphs: ICudagraphOutcome | null;
    /** What torch runs in place of the frame; null: not known. */
    runs_as: IRunsAs | null;
  }
>;

/** torch's CUDA-graph outcome of one compile (`--mode reduce-overhead`). */
export interface ICudagraphOutcome {
  status: R.CudagraphOutcome['status'];
  reason: string;
  line: ISourceLine | null;
  cell: number | null;
  /** Inductor's graph partitions; null: torch said nothing of partitions. */
  partitions: ICudagraphPartitions | null;
  /** The outcome in words, made in the kernel ('' in a record saved before it was). */
  text: string;
}

/** How Inductor split the compile's graphs around what CUDA graphs cannot capture. */
export interface ICudagraphPartitions {
  partitions: number;
  cudagraphable: number;
  /** The nodes it runs outside CUDA graphs: torch's reason and the user's line. */
  outside: {
    node: string;
    reason: string;
    line: ISourceLine | null;
    cell: number | null;
  }[];
}

/** One call under CUDA-graph trees: what torch's tree manager did in it. */
export interface ICudagraphCall {
  call: number;
  cell: number | null;
  warmups: number;
  recordings: number;
  replays: number;
  eager: number;
  /** Re-records: torch's reason and the inputs whose data pointer changed. */
  rerecords: { reason: string; inputs: string[]; line: string }[];
  /** Input sizes first recorded in this call (torch's symint key, `static`). */
  new_shapes: string[];
  fell_back: string;
  pool_before: number | null;
  pool_after: number | null;
  /** What happened, in the kernel's words (the summary's line says the same). */
  what: string;
  /** The backward pass after call `call` (outside the call: replays not counted). */
  backward: boolean;
}

/** Names found after a cell holding CUDA-graph outputs no longer theirs, in the
 * kernel's words (the cell's output and the summary say the same `text`). */
export interface ICudagraphHazard {
  kind: 'overwritten' | 'shared';
  cell: number | null;
  names: string[];
  text: string;
}

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
    /** Calls under CUDA graphs (warm-up, recording, replays, pool), oldest first. */
    cudagraph_calls: ICudagraphCall[];
    /** Names holding its CUDA-graph outputs after a later call took them, oldest first. */
    cudagraph_hazards: ICudagraphHazard[];
    /** Each cell's code file the record names (as written there) -> `cell [N]`. */
    cell_names: CellNames;
  }
>;

export type ITorchLog = View<
  R.TorchLog,
  'level' | 'logger' | 'compile_id' | 'message'
>;

/** A `"record": "summary"` payload: the targets of one `%%compile` cell (or report). */
export interface ISummaryPayload {
  record: 'summary';
  cell: ICellRef;
  updated_at: number | null;
  targets: ITargetRecord[];
}
