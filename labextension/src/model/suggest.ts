/**
 * The view of a suggestions record (`nbcompile.suggest` / `%suggest`): the baseline
 * and each change tried on a copy.
 */

import type { View } from '../generated/fields';
import type * as R from '../generated/record';

/** Counts and time of one setup (the baseline or a suggestion tried on a copy). */
export type IMeasured = View<R.Measured>;

/** The break or recompile a suggestion addresses. */
export type IProblem = View<R.Problem>;

/** One change tried on a copy: `change` is the exact change, as code (a setting, a flag,
 * or `- old` / `+ new` lines); `same_result` the numeric check against the original
 * (`ok` null when not checked). */
export type ISuggestion = View<
  R.Suggestion,
  {
    problem: IProblem;
    after: IMeasured | null;
    same_result: View<R.SameResult>;
  }
>;

/** A `"record": "suggestions"` payload (`nbcompile.suggest` / `%suggest`). */
export type ISuggestionsPayload = View<
  R.Suggestions,
  {
    record: 'suggestions';
    key: string;
    baseline: IMeasured;
    problems: IProblem[];
    items: ISuggestion[];
  }
>;
