/**
 * The view of a compile-time record (`nbcompile.compile_time` / `%compile_time`).
 */

import type * as R from '../generated/record';

/** A `"record": "compile_time"` payload (`nbcompile.compile_time` / `%compile_time`):
 * its parts are the schema-checked wire values. */
export interface ICompileTimePayload {
  record: 'compile_time';
  key: string;
  name: string;
  cold_s: number | null;
  warm_restart_s: number | null;
  where: R.Where;
  remedies: R.Remedy[];
  /** This kernel's compiles of the call's code, each compared with an earlier compile of
   * its frame (in this kernel, or in an earlier kernel of this notebook). */
  kernel_compiles: R.FrameTime[];
  /** Fresh processes run. */
  runs: number;
  elapsed_s: number;
  notes: string[];
  interrupted: boolean;
  truncated: boolean;
}
