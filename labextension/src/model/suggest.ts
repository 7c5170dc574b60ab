/**
 * The view of a suggestions record (`nbcompile.suggest` / `%suggest`): the baseline
 * and each change tried on a copy.
 */

import type * as R from '../generated/record';
import type { CellNames, View } from './parts';

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
  /** Each cell's code file the record names (as written there) -> `cell [N]`. */
  cell_names: CellNames;
}
