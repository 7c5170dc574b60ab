/**
 * The view of a trace record (`nbcompile.open_trace`): a TORCH_TRACE log or a job's
 * directory of rank logs, its compiles and where the ranks diverged.
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

/** One compile read from a TORCH_TRACE log (`nbcompile.open_trace`); its `phases` are
 * `metric_phases` (exclusive, from `compilation_metrics`: one stacked bar) plus Dynamo's
 * timed regions from the chromium events (nested). */
export type ITraceCompile = View<
  R.TraceCompile,
  {
    lineno: number | null;
    /** `compiled`, `failed`, `restarted` or `cache_hit`; anything else kept as given. */
    status: string;
    /** The user stack that led to the compiled frame, outermost first. */
    stack: ISourceLine[];
    graph_breaks: IGraphBreak[];
    kernels: IKernel[];
    /** What torch runs in place of the frame, as far as the log holds it; null: not read. */
    runs_as: IRunsAs | null;
  }
>;

/** Where the ranks of a job compiled differently. */
export type IDivergence = View<R.Divergence, { kind: string }>;

/** A `"record": "trace"` payload: a TORCH_TRACE log or directory, every rank. */
export type ITracePayload = View<
  R.TraceRecord,
  {
    key: string;
    compiles: ITraceCompile[];
    divergences: IDivergence[];
    /** Parts left out to fit the output budget (compiles, compiles' contents). */
    omitted: IOmission[];
  }
>;
