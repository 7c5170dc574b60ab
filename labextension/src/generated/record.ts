/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs
 * (json-schema-to-typescript). Do not edit: run `npm run gen:types`. */

/**
 * What the kernel publishes under the MIME type application/vnd.nbcompile.v1+json. Documented in docs/records.md. Consumers must ignore unknown fields and unknown record kinds.
 */
export type NbcompileRecordSchemaVersion1 = {
  schema_version: 1;
  record: string;
};
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "error".
 */
export type Error = {
  type: string;
  message: string;
  filename?: string | null;
  lineno?: number | null;
  line?: string;
  hint?: string;
  stack?: SourceLine[];
} | null;

/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "cell".
 */
export interface Cell {
  filename?: string;
  execution_count?: number | null;
  cell_id?: string | null;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "sourceLine".
 */
export interface SourceLine {
  filename: string;
  lineno: number;
  line?: string;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "graphBreak".
 */
export interface GraphBreak {
  reason: string;
  filename: string | null;
  lineno: number | null;
  line: string;
  hint: string;
  explanation?: string;
  gb_type?: string;
  compile_id?: string;
  stack?: SourceLine[];
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "recompile".
 */
export interface Recompile {
  reason: string;
  compile_id: string;
  guard?: string;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "kernel".
 */
export interface Kernel {
  name: string;
  language: 'cpp' | 'triton' | 'python';
  kind: 'kernel' | 'extern' | 'wrapper';
  source: string;
  size: number;
  compile_id?: string;
  ops?: string[];
  lines?: SourceLine[];
  stage?: string;
  nodes?: string[];
  handle?: string;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "compile".
 */
export interface Compile {
  compile_id: string;
  frame: string;
  filename?: string;
  firstlineno?: number;
  status: 'ok' | 'failed';
  error?: string;
  recompile_reason?: string;
  graphs: string[];
  graph_op_count?: number;
  guards: string;
  output_code?: string;
  kernels?: Kernel[];
  graph_breaks?: GraphBreak[];
  times: {
    [k: string]: number;
  };
  cache?: {
    [k: string]: number;
  };
  post_grad_graphs?: string[];
  recompile_limit?: number;
  recompile_guard?: string;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "target".
 */
export interface Target {
  schema_version: 1;
  record: 'target';
  id: string;
  name: string;
  kind: 'function' | 'module';
  options: {};
  status: 'pending' | 'compiling' | 'compiled' | 'failed' | 'disabled';
  wrapper?: string | null;
  compiled_object?: string;
  cell: Cell;
  notes?: string[];
  error?: Error;
  compiling_since?: number | null;
  compiles: Compile[];
  graph_count: number;
  graph_breaks: GraphBreak[];
  recompiles: Recompile[];
  kernels: Kernel[];
  output_code: string;
  compile_time_s: number;
  graph_break_count: number;
  recompile_count: number;
  kernel_count: number;
  truncated?: boolean;
  advice?: Advice[];
  annotations?: LineAnnotation[];
  code_diffs?: CodeDiff[];
  preview?: string;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "advice".
 */
export interface Advice {
  kind: string;
  message: string;
  fix?: string;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "lineAnnotation".
 */
export interface LineAnnotation {
  filename: string;
  lineno: number;
  line: string;
  category:
    | 'kernel'
    | 'extern'
    | 'graph_break'
    | 'error'
    | 'traced'
    | 'python'
    | 'pending'
    | 'outside'
    | 'blank';
  kernels?: string[];
  externs?: string[];
  kernel_refs?: number[];
  ops?: string[];
  reason?: string;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "codeDiff".
 */
export interface CodeDiff {
  kernel: string;
  compile_id: string;
  previous_compile_id: string;
  previous_kernel?: string;
  stage?: string;
  language?: string;
  change?: 'changed' | 'added' | 'removed';
  cause?: string;
  diff: string;
  added?: number;
  removed?: number;
}
