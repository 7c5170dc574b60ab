/**
 * The view of a diagnosis record (`nbcompile.diagnose` / `%diagnose`): the backend
 * ladder, the bisection, the float64 reference and the workarounds tried.
 */

import type * as R from '../generated/record';
import type { CellNames, View } from './parts';

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
  /** Each cell's code file the record names (as written there) -> `cell [N]`. */
  cell_names: CellNames;
}
