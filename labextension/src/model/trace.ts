/**
 * The view of a trace record (`nbcompile.open_trace`): a TORCH_TRACE log or a job's
 * directory of rank logs, its compiles and where the ranks diverged.
 */

import type * as R from '../generated/record';
import type {
  IGraphBreak,
  IKernel,
  IOmission,
  IRunsAs,
  ISourceLine,
  View
} from './parts';

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
    /** What torch runs in place of the frame, as far as the log holds it; null: not read. */
    runs_as: IRunsAs | null;
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
