/**
 * The view of a live target record (`%%compile`, `nbcompile.compile`) and of the
 * summary that carries a cell's targets: compiles, recompiles, errors, options, logs,
 * annotated source lines and code diffs.
 */

import type { View } from '../generated/fields';
import type * as R from '../generated/record';
import type {
  IGraphBreak,
  IKernel,
  IOmission,
  IRunsAs,
  ISourceLine
} from './parts';

/** A recompile: `cell` the execution count of the cell whose call recompiled (null:
 * unknown), `changed_by` those of the cells that changed what the failed guard reads,
 * `changes` those changes in words (`cell [7] set SCALE = 0.5`). */
export type IRecompile = View<R.Recompile>;

/** One source line of a target, marked with what became of it. */
export type IAnnotation = View<R.LineAnnotation, { lineno: number | null }>;

/** A kernel's code that changed between two compiles, as a unified diff. */
export type ICodeDiff = View<R.CodeDiff>;

export type ICompile = View<
  R.CompileRecord,
  {
    status: string;
    /** The breaks this compile hit (Dynamo reports them again on every recompile). */
    graph_breaks: IGraphBreak[];
    /** What torch did about CUDA graphs for it; null: not asked for, or nothing said. */
    cudagraphs: ICudagraphOutcome | null;
    /** What torch runs in place of the frame; null: not known. */
    runs_as: IRunsAs | null;
  }
>;

/** torch's CUDA-graph outcome of one compile (`--mode reduce-overhead`); `text`: the
 * outcome in words, made in the kernel ('' in a record saved before it was). */
export type ICudagraphOutcome = View<
  R.CudagraphOutcome,
  {
    line: ISourceLine | null;
    /** Inductor's graph partitions; null: torch said nothing of partitions. */
    partitions: ICudagraphPartitions | null;
  }
>;

/** How Inductor split the compile's graphs around what CUDA graphs cannot capture:
 * `outside`, the nodes it runs outside CUDA graphs (torch's reason, the user's line). */
export type ICudagraphPartitions = View<
  R.CudagraphPartitions,
  { outside: View<R.CudagraphPartitionNode, { line: ISourceLine | null }>[] }
>;

/** One call under CUDA-graph trees: what torch's tree manager did in it (`what`: in the
 * kernel's words, as the summary's line says it; `backward`: the backward pass after
 * call `call`, outside the call, replays not counted). */
export type ICudagraphCall = View<
  R.CudagraphCall,
  {
    /** Re-records: torch's reason and the inputs whose data pointer changed. */
    rerecords: View<R.CudagraphRerecord>[];
    /** Input sizes first recorded in this call (torch's symint key, `static`). */
    new_shapes: string[];
  }
>;

/** Names found after a cell holding CUDA-graph outputs no longer theirs, in the
 * kernel's words (the cell's output and the summary say the same `text`). */
export type ICudagraphHazard = View<R.CudagraphHazard, { names: string[] }>;

export type ITargetError = View<
  R.TargetError,
  {
    /** Dynamo's user stack, outermost first, as for graph breaks. */
    stack: ISourceLine[];
  }
>;

export type ICellRef = View<R.CellRef>;

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
    /** Calls under CUDA graphs (warm-up, recording, replays, pool), oldest first. */
    cudagraph_calls: ICudagraphCall[];
    /** Names holding its CUDA-graph outputs after a later call took them, oldest first. */
    cudagraph_hazards: ICudagraphHazard[];
  }
>;

export type ITorchLog = View<R.TorchLog>;

/** A `"record": "summary"` payload: the targets of one `%%compile` cell (or report). */
export interface ISummaryPayload {
  record: 'summary';
  cell: ICellRef;
  updated_at: number | null;
  targets: ITargetRecord[];
}
