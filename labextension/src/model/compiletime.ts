/**
 * The view of a compile-time record (`nbcompile.compile_time` / `%compile_time`).
 */

import type * as R from '../generated/record';

/** A `"record": "compile_time"` payload (`nbcompile.compile_time` / `%compile_time`):
 * shown inline only; its parts are the schema-checked wire values. */
export interface ICompileTimePayload {
  record: 'compile_time';
  key: string;
  name: string;
  cold_s: number | null;
  warm_restart_s: number | null;
  where: R.Where;
  remedies: R.Remedy[];
  /** Fresh processes run. */
  runs: number;
  elapsed_s: number;
  notes: string[];
  interrupted: boolean;
  truncated: boolean;
}
