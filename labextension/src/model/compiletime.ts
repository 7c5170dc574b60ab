/**
 * The view of a compile-time record (`nbcompile.compile_time` / `%compile_time`).
 */

import type { View } from '../generated/fields';
import type * as R from '../generated/record';

/** A `"record": "compile_time"` payload (`nbcompile.compile_time` / `%compile_time`):
 * its parts are the schema-checked wire values. */
export type ICompileTimePayload = View<
  R.CompileTime,
  {
    key: string;
    /** Fresh processes run (the record's `runs`, counted). */
    runs: number;
  }
>;
