/**
 * The view of a diagnosis record (`nbcompile.diagnose` / `%diagnose`): the backend
 * ladder, the bisection, the float64 reference and the workarounds tried.
 */

import type { View } from '../generated/fields';
import type * as R from '../generated/record';

/** One rung of a diagnosis's ladder: a copy compiled with one backend, judged against eager. */
export type IRung = View<
  R.Rung,
  {
    /** `dynamo`, `aot_autograd` or `inductor`: the layer this rung adds. */
    layer: string;
    /** `ok`, `accuracy`, `crash` or `not run`; anything else kept as given. */
    outcome: string;
  }
>;

/** What torch's CompilerBisector found. */
export type IBisection = View<R.Bisection>;

/** The float64 run: who is closer to it. */
export type IReference = View<
  R.Reference,
  {
    /** `eager`, `compiled` or `neither`. */
    closer: string;
  }
>;

/** A workaround tried on a copy, with its measured effect and cost. */
export type IWorkaround = View<
  R.Workaround,
  {
    /** `verified`, `tried, did not help` or `not tried`. */
    status: string;
    outcome: string;
  }
>;

/** A `"record": "diagnosis"` payload (`nbcompile.diagnose` / `%diagnose`). */
export type IDiagnosisPayload = View<
  R.Diagnosis,
  {
    key: string;
    /** `crash`, `accuracy` or `ok`. */
    kind: string;
    /** `dynamo`, `aot_autograd`, `inductor`, or null when not known. */
    layer: string | null;
    rungs: IRung[];
    bisection: IBisection | null;
    reference: IReference | null;
    workarounds: IWorkaround[];
  }
>;
