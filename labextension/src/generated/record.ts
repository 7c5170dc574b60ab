/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs
 * (json-schema-to-typescript). Do not edit: run `npm run gen:types`. */

/**
 * What the kernel publishes under the MIME type application/vnd.nbcompile.v1+json. Generated from the dataclasses in nbcompile/core/ (records.py, perf/comparison.py, perf/profile/record.py, fixes/record.py, logs/record.py, diagnosis/record.py) by `python -m nbcompile.schema.generate`: do not edit. Documented in docs/records.md.
 */
export type NbcompileRecordSchemaVersion1 =
  | SummaryRecord
  | TargetRecord
  | Comparison
  | Profile
  | Suggestions
  | TraceRecord
  | Diagnosis
  | CompileTime;

/**
 * The live output of a `%%compile` cell (`display.payload.summary_payload`).
 */
export interface SummaryRecord {
  cell: CellRef;
  /**
   * Unix time of this update
   */
  updated_at: number;
  /**
   * the cell's targets (published: capped), in order
   */
  targets: TargetRecord[];
  schema_version: 1;
  record: 'summary';
}
/**
 * the `%%compile` cell
 */
export interface CellRef {
  /**
   * the cell's code filename, as in tracebacks
   */
  filename?: string;
  /**
   * the cell number the notebook shows
   */
  execution_count?: number | null;
  /**
   * JupyterLab's cell id from the execute request, when known
   */
  cell_id?: string | null;
}
/**
 * Everything known about one compiled target, as one JSON-ready record.
 */
export interface TargetRecord {
  /**
   * unique per kernel session (`"t3"`); a re-run cell gets new ids
   */
  id: string;
  /**
   * the name in the user's namespace
   */
  name: string;
  kind: 'function' | 'module';
  /**
   * `mode`, `fullgraph`, `dynamic`, `backend`, `options`, `disable` as given.
   */
  options: {
    [k: string]: unknown;
  };
  status:
    | 'pending'
    | 'compiling'
    | 'compiled'
    | 'failed'
    | 'disabled'
    | 'not_compiled'
    | 'compiled_inside';
  /**
   * the wrapper(s) the name holds, outermost first
   */
  wrapper: string | null;
  /**
   * what was compiled, e.g. `torch.compile(fn)`
   */
  compiled_object: string;
  cell: CellRef1;
  /**
   * things the user should know
   */
  notes: string[];
  /**
   * why the last compile failed
   */
  error: TargetError | null;
  /**
   * Unix time a running compile started
   */
  compiling_since: number | null;
  /**
   * every frame compile
   */
  compiles: CompileRecord[];
  /**
   * FX graphs produced (a graph break splits a function)
   */
  graph_count: number;
  /**
   * de-duplicated
   */
  graph_breaks: GraphBreak[];
  /**
   * in order
   */
  recompiles: Recompile[];
  /**
   * every code piece of every compile
   */
  kernels: Kernel[];
  /**
   * every compile's generated module, each after a header line
   */
  output_code: string;
  /**
   * sum of the compiles' `total_s`
   */
  compile_time_s: number;
  /**
   * one per source line
   */
  annotations?: LineAnnotation[];
  /**
   * Why none of the source lines maps to a kernel, in one sentence (the source pane shows it instead of lines that never light); "": a line does, or there is no kernel yet.
   */
  no_kernel_lines?: string;
  /**
   * changes since last compile
   */
  code_diffs?: CodeDiff[];
  /**
   * what to change, from patterns
   */
  advice?: Advice[];
  /**
   * e.g. "triton": generated code is a preview (--codegen triton)
   */
  preview?: string;
  /**
   * What a published copy left out to stay within the output budget (empty in the kernel)
   */
  omitted?: Omission[];
  schema_version: 1;
  record: 'target';
  /**
   * torch's log records about its compiles, kept off stderr (`--torch-logs` keeps them)
   */
  torch_logs?: TorchLog[];
  /**
   * status compiled_inside: the target of the same cell whose graph this module ran in
   */
  compiled_inside?: string;
  /**
   * status compiling: where the running compile is (absent once it finished)
   */
  progress?: CompileProgress | null;
  /**
   * the `torch.compiler.set_stance` stance in force (`%%stance`, `%nbcompile stance`)
   */
  stance?: string;
  /**
   * calls that ran eagerly
   */
  eager_runs?: EagerRuns[];
  /**
   * calls under CUDA graphs (`--mode reduce-overhead` on a GPU) that warmed up, recorded, re-recorded or fell back, each with the first call that replayed after
   */
  cudagraph_calls?: CudagraphCall[];
  /**
   * the input sizes its CUDA graphs were recorded for (None: none recorded)
   */
  cudagraph_shapes?: CudagraphShapes | null;
  /**
   * names found holding this target's CUDA-graph outputs after a later call took them (the latest, at most `cudagraphs.hazard.MAX_KEPT`)
   */
  cudagraph_hazards?: CudagraphHazard[];
  /**
   * len(graph_breaks)
   */
  graph_break_count: number;
  /**
   * each notebook cell's code file the record names (a break's file, torch's text: an FX graph's `# File:` comments, guards, log messages), as written there -> the cell as the notebook names it (`cell [2]`); torch's text stays verbatim (published)
   */
  cell_names?: {
    [k: string]: string;
  };
  /**
   * len(recompiles)
   */
  recompile_count: number;
  /**
   * generated kernels that run (kernels of kind kernel)
   */
  kernel_count: number;
  /**
   * every code piece: kernels, extern calls, wrappers
   */
  code_piece_count?: number;
  /**
   * set when published inline and some text was capped
   */
  truncated?: boolean;
  /**
   * the status in words, as the kernel shows it (published; `compiling` is ticked by the front end from compiling_since)
   */
  status_text?: string;
  /**
   * status compiling: the current step, the frame and the steps so far in words, as the kernel shows them (published)
   */
  progress_text?: string;
}
/**
 * the defining cell
 */
export interface CellRef1 {
  /**
   * the cell's code filename, as in tracebacks
   */
  filename?: string;
  /**
   * the cell number the notebook shows
   */
  execution_count?: number | null;
  /**
   * JupyterLab's cell id from the execute request, when known
   */
  cell_id?: string | null;
}
/**
 * Why a target could not compile (e.g. a `fullgraph=True` break), tied to a line.
 */
export interface TargetError {
  /**
   * the exception type
   */
  type: string;
  message: string;
  /**
   * the innermost frame, often a library line
   */
  filename: string | null;
  lineno: number | null;
  line: string;
  /**
   * newline-separated hints from Dynamo
   */
  hint: string;
  /**
   * as `GraphBreak.stack`
   */
  stack?: SourceLine[];
}
/**
 * One line of user source: where it lives and what it says.
 */
export interface SourceLine {
  /**
   * the code filename, as in tracebacks (a cell's is `<ipython-input-...>`)
   */
  filename: string;
  /**
   * 1-based; in a `%%compile` cell the magic line is line 1
   */
  lineno: number;
  /**
   * the source text
   */
  line: string;
}
/**
 * One Dynamo frame compile (`compile_id` like `"0/1"`): graphs, guards, code.
 */
export interface CompileRecord {
  /**
   * `"0/1"`: frame 0, its second compile
   */
  compile_id: string;
  /**
   * Code name; code after a graph break runs as `torch_dynamo_resume_in_<fn>_at_<line>`.
   */
  frame: string;
  filename: string;
  firstlineno: number;
  status: 'ok' | 'failed';
  /**
   * why it failed
   */
  error: string;
  /**
   * the failed guard(s), in words
   */
  recompile_reason: string;
  /**
   * the failed guard(s) as Dynamo wrote them
   */
  recompile_guard?: string;
  /**
   * readable FX graphs (`# File:` lines)
   */
  graphs: string[];
  /**
   * ops in the graphs
   */
  graph_op_count: number;
  /**
   * Dynamo's guard tree as text
   */
  guards: string;
  /**
   * generated module (empty when published: it is at target level)
   */
  output_code: string;
  /**
   * where Inductor wrote the generated module
   */
  output_code_path: string;
  /**
   * empty when published
   */
  kernels: Kernel[];
  /**
   * Inductor's input graphs
   */
  post_grad_graphs?: string[];
  graph_breaks: GraphBreak[];
  /**
   * Seconds: `total_s`, `backend_compile_s`, `inductor_compile_s`, `code_gen_s`...
   */
  times: {
    [k: string]: number;
  };
  /**
   * Counts of `fx_graph_cache_hit`/`_miss`, `aotautograd_cache_hit`/`_miss`.
   */
  cache: {
    [k: string]: number;
  };
  /**
   * Unix time the compile started
   */
  started_at: number;
  /**
   * torch._dynamo.config.recompile_limit in force (0: unknown)
   */
  recompile_limit?: number;
  /**
   * Exclusive seconds per compile phase (`Dynamo tracing`, `AOTAutograd`, `Inductor passes`, `Inductor lowering`, `code generation`, `C++/Triton compile`, `gc`), summing to at most `times.total_s`; phases torch did not report are absent.
   */
  phases?: {
    [k: string]: number;
  };
  /**
   * guard evaluation time torch measured, if any
   */
  guard_latency_s?: number | null;
  /**
   * Seconds Dynamo traced this frame before a graph break made it start over (torch's `dynamo_time_before_restart_s`): tracing the break threw away; None: no restart.
   */
  restart_s?: number | null;
  /**
   * torch's Chrome-trace events of this compile (`ph` B/E/i, `ts` in us, `name`, `cat`...), for `report(x).save_chrome_trace(path)`; kept in the kernel, left out of published records.
   */
  chromium_events?: {
    [k: string]: unknown;
  }[];
  /**
   * What became of CUDA graphs for this compile's graphs (`--mode reduce-overhead`), from torch's own messages and skip count; None: CUDA graphs were not asked for, or torch neither said nor counted anything.
   */
  cudagraphs?: CudagraphOutcome | null;
  /**
   * Execution count of the cell run that made the call (None: unknown, e.g. no cell ran).
   */
  cell?: number | null;
  /**
   * Execution counts of the cell runs since the frame's previous compile that changed what the failed guard reads (a global, a module's `training`); empty: none known.
   */
  changed_by?: number[];
  /**
   * those, in words: `cell [7] set X = 1`
   */
  changes?: string[];
  /**
   * What torch runs in place of the frame (its transformed code as Python and the walk through graphs, Python and resume functions); None: not known (not heard; a trace compile holds what its log does)
   */
  runs_as?: RunsAs | null;
  /**
   * For a recompile: each compiled version torch tried, newest first, with its own failed guard (torch's record of the call); empty: not a recompile, or torch named none.
   */
  failed_versions?: FailedVersion[];
  /**
   * The compile as views head it, with the code named as the user wrote it: `compile 0/1 (f)`; the frame torch compiles for a module target (its `wrap_inline` wrapper, `inner`) named by the module (`compile 0/0 (model)`); "": not set.
   */
  label?: string;
  /**
   * The code the compile ran, as the user wrote it: `frame`, or for a module target's wrapper frame the module's name (`model`, where torch says `inner`); "": not set.
   */
  code?: string;
}
/**
 * One piece of generated code: a C++/Triton kernel, an extern call or the wrapper.
 */
export interface Kernel {
  name: string;
  language: 'cpp' | 'triton' | 'python';
  /**
   * the code
   */
  source: string;
  kind: 'kernel' | 'extern' | 'wrapper';
  /**
   * characters of source
   */
  size: number;
  compile_id: string;
  /**
   * ATen ops it computes (`aten.mul`)
   */
  ops: string[];
  /**
   * The user lines it came from: exact when Inductor's provenance tracking named them (nbcompile turns it on while loaded), else matched by op names and order.
   */
  lines: SourceLine[];
  /**
   * inference | forward | backward (AOT graph the code belongs to)
   */
  stage?: string;
  /**
   * Inductor's provenance handle ("cpp_fused_add_1:4"), when tracked
   */
  handle?: string;
  /**
   * FX node names it computes
   */
  nodes?: string[];
  /**
   * Seconds Triton took to compile it, as torch measured (`compilation_metrics`' `triton_kernel_compile_times_us`; GPU compiles); None: torch did not say.
   */
  compile_time_s?: number | null;
  /**
   * The compile it came from, in the words every view names it by (`compile 0/1`), so two kernels of one name from two compiles read apart; "": not known.
   */
  compile_label?: string;
}
/**
 * A place where Dynamo stopped tracing and fell back to Python.
 */
export interface GraphBreak {
  /**
   * type and explanation in words
   */
  reason: string;
  /**
   * where it broke (the innermost frame)
   */
  filename: string | null;
  lineno: number | null;
  /**
   * the source text of that line
   */
  line: string;
  /**
   * newline-separated hints from Dynamo
   */
  hint: string;
  /**
   * Dynamo's explanation
   */
  explanation: string;
  /**
   * Dynamo's graph-break type
   */
  gb_type: string;
  /**
   * the compile that broke (`"0/1"`)
   */
  compile_id: string;
  /**
   * Dynamo's user stack, outermost first: e.g. the user's cell line, then the library lines it called into, down to the line that broke (`filename`/`lineno`).
   */
  stack?: SourceLine[];
  /**
   * Dynamo's graph-break id, e.g. "GB0170"
   */
  gb_id?: string;
  /**
   * the graph break's documentation page
   */
  doc_url?: string;
  /**
   * frames of the process's own machinery above the user's first frame (in a kernel: runpy, ipykernel, tornado, asyncio, IPython) that Dynamo printed and `stack` leaves out
   */
  stack_dropped?: number;
  /**
   * compiles of the target that hit this break (published on a target's graph_breaks, counted by insight/break_ranking.py)
   */
  hits?: number;
  /**
   * what torch runs around this break, in one line: the graph before it, the Python at its line, where it resumes (published on a target's graph_breaks from the compiles' runs_as; absent when not known)
   */
  runs_as?: string;
}
/**
 * What torch did about CUDA graphs for one compile (`--mode reduce-overhead`), read from its own record: its `cudagraphs` log messages and `counters["inductor"]["cudagraph_skips"]`.
 */
export interface CudagraphOutcome {
  status: 'recorded' | 'skipped' | 'not_used';
  /**
   * torch's reason in its words (`mutated inputs (1 instances)`, `cpu device`); empty when recorded
   */
  reason?: string;
  /**
   * the user's line torch named (its `Found from:` stack, innermost user frame)
   */
  line?: SourceLine | null;
  /**
   * execution count of the cell that line is in, when known
   */
  cell?: number | null;
  /**
   * torch's messages, verbatim
   */
  messages?: string[];
  /**
   * Inductor's graph partitions (torch 2.9+ on a GPU, when its scheduler ran: not on an FX-graph cache hit); None: torch said nothing of partitions
   */
  partitions?: CudagraphPartitions | null;
  /**
   * why the partitions are not known, when torch could not say (`served from the FX-graph cache`, `not reported by torch 2.9`); empty otherwise
   */
  partitions_unknown?: string;
  /**
   * the outcome in words, as the Compiles column shows it (made in Python: the inspector only renders it)
   */
  text?: string;
}
/**
 * How Inductor split a compile's graphs around what CUDA graphs cannot capture (graph partitioning): torch's count of partitions, those it records as CUDA graphs, and the nodes it runs outside them. Summed over the compile's Inductor graphs.
 */
export interface CudagraphPartitions {
  /**
   * "Created N graph partitions"
   */
  partitions: number;
  /**
   * those CUDA-graph trees record
   */
  cudagraphable: number;
  outside: CudagraphPartitionNode[];
}
/**
 * A node Inductor kept out of CUDA graphs by graph partitioning (`torch._inductor.config.graph_partition`), in torch's words: its scheduler's `cudagraphs` DEBUG line for a node of a non-cudagraphable partition.
 */
export interface CudagraphPartitionNode {
  /**
   * Inductor's buffer name (`buf1`)
   */
  node: string;
  /**
   * torch's reason (`cpu ops`, `DeviceCopy ops`)
   */
  reason: string;
  /**
   * the FX node as torch printed it (`mul(arg1_1, 2)`)
   */
  fx?: string;
  /**
   * the user's line in the node's stack trace
   */
  line?: SourceLine | null;
  /**
   * execution count of the cell that line is in, when known
   */
  cell?: number | null;
}
/**
 * What torch runs in place of a compiled frame: Dynamo's transformed bytecode, decompiled to Python (depyf), and the walk derived from it.
 */
export interface RunsAs {
  /**
   * the transformed code as Python ("" when it could not be decompiled)
   */
  source?: string;
  /**
   * graphs, Python, resume, in order
   */
  steps?: RunStep[];
  /**
   * the steps in one line: `graph 1 (2 ops: sin, mul) -> print(...) ...`
   */
  walk?: string;
  /**
   * `dis` of the transformed code, when `source` is empty
   */
  dis?: string;
  /**
   * why `source` is empty (depyf missing or failed), in words
   */
  problem?: string;
}
/**
 * One step of what torch runs in place of a frame, in order.
 */
export interface RunStep {
  kind: 'graph' | 'python' | 'resume';
  /**
   * the step in words: `graph 1 (3 ops: sin, mul)`, `print('debug') in Python`
   */
  text: string;
  /**
   * graph: which of this compile's `graphs` (0-based) Dynamo's code calls here
   */
  graph?: number | null;
  /**
   * python: the user line run eagerly (the graph break's line)
   */
  lineno?: number | null;
  /**
   * resume: the resume function's frame (`torch_dynamo_resume_in_f_at_8`) whose own compiles (`CompileRecord.frame`) carry its graphs, guards and recompiles; "" unknown
   */
  frame?: string;
  /**
   * python: where the graph break is when it is inside a function this line calls (that function then runs as a frame of its own); None: the break is on `lineno` itself
   */
  inner?: SourceLine | null;
  /**
   * resume: another branch's resume function (a data-dependent branch resumes in one of two, whichever the condition picks)
   */
  alternative?: boolean;
}
/**
 * One compiled version whose guards a call failed before torch recompiled.
 */
export interface FailedVersion {
  /**
   * the version's compile (`"0/2"`), as torch names it ("": not named)
   */
  compile_id: string;
  /**
   * its failed guard(s) as torch wrote them (`; `-joined)
   */
  guard: string;
  /**
   * execution count of the cell run whose call compiled it
   */
  cell: number | null;
}
/**
 * A compile triggered because an earlier compile's guards failed.
 */
export interface Recompile {
  /**
   * the failed guard in words, e.g. `tensor 'x' dtype mismatch. ...`
   */
  reason: string;
  /**
   * `"0/1"`: frame 0, its second compile
   */
  compile_id: string;
  /**
   * the failed guard as Dynamo wrote it
   */
  guard: string;
  /**
   * the code recompiled (a resumed part: `torch_dynamo_resume_in_<fn>_at_<n>`)
   */
  frame?: string;
  /**
   * execution count of the cell run whose call recompiled
   */
  cell?: number | null;
  /**
   * cells that changed what it reads
   */
  changed_by?: number[];
  /**
   * in words: `cell [7] set SCALE = 0.5`
   */
  changes?: string[];
  /**
   * Each compiled version torch tried for this call, newest first, with its own failed guard; empty: torch named none (a record from an older nbcompile, or a trace without them).
   */
  failed_versions?: FailedVersion[];
  /**
   * The recompile in words, as every view shows it: the reason, who changed what the guard reads, the call that paid and the versions torch tried; "": a record from an older nbcompile (a view shows `reason`).
   */
  text?: string;
}
/**
 * What became of one source line (`%%compile --annotate`, `report(obj).annotate()`).
 */
export interface LineAnnotation {
  filename: string;
  lineno: number;
  /**
   * the source text
   */
  line: string;
  /**
   * kernel | extern | graph_break | error | traced | python | pending | ...
   */
  category: string;
  /**
   * labels of generated kernels
   */
  kernels: string[];
  /**
   * labels of extern calls
   */
  externs: string[];
  /**
   * indexes into TargetRecord.kernels
   */
  kernel_refs: number[];
  /**
   * ATen ops of this line
   */
  ops: string[];
  /**
   * for a graph break or an error: why
   */
  reason: string;
}
/**
 * What changed in one kernel's generated code since the previous compile.
 */
export interface CodeDiff {
  /**
   * the kernel's name in this compile
   */
  kernel: string;
  compile_id: string;
  previous_compile_id: string;
  /**
   * its name in the previous compile
   */
  previous_kernel: string;
  /**
   * inference | forward | backward
   */
  stage: string;
  language: string;
  /**
   * changed | added | removed
   */
  change: string;
  /**
   * the recompile reason, or "cell re-run"
   */
  cause: string;
  /**
   * unified diff text
   */
  diff: string;
  /**
   * lines added
   */
  added: number;
  /**
   * lines removed
   */
  removed: number;
}
/**
 * What the user should change, in words, from a pattern seen across compiles.
 */
export interface Advice {
  /**
   * recompile-storm | scalar-specialization | recompile-limit | rank-change
   */
  kind: string;
  /**
   * in words
   */
  message: string;
  /**
   * the setting or code to use
   */
  fix: string;
}
/**
 * A part of a record left out of a published output to keep it within its byte budget; the kernel keeps it whole (`how` gets it there).
 */
export interface Omission {
  /**
   * what was cut: `compiles`, `kernels`, `compiles[].graphs`...
   */
  field: string;
  /**
   * how many items (or characters, see `unit`) were left out
   */
  count: number;
  /**
   * the kernel expression that has them all: `nbcompile.report(f).compiles`
   */
  how: string;
  /**
   * items | characters
   */
  unit: string;
}
/**
 * A record torch logged during one of the target's compiles (kept out of stderr).
 */
export interface TorchLog {
  /**
   * `WARNING`, `INFO`...
   */
  level: string;
  /**
   * e.g. `torch._dynamo.variables.tensor`
   */
  logger: string;
  /**
   * the compile it was logged in (`"0/1"`)
   */
  compile_id: string;
  /**
   * torch's text, as it would have printed (multi-line)
   */
  message: string;
}
/**
 * Where a running frame compile is, from torch's live trace events (present only while a target compiles; the finished compile's phases are `CompileRecord.phases`).
 */
export interface CompileProgress {
  /**
   * `"0/1"`: the frame compile running
   */
  compile_id: string;
  /**
   * the code being compiled (function name)
   */
  frame: string;
  /**
   * its file (a cell's is `<ipython-input-...>`)
   */
  filename: string;
  /**
   * its first line
   */
  lineno: number;
  /**
   * The current step: `tracing bytecode`, `building the graph`, `AOTAutograd`, `Inductor graph passes`, `Inductor lowering`, `Inductor code generation`, `compiling kernels`, `loading the compiled code`, `loading from the cache`, `building guards`
   */
  phase: string;
  /**
   * seconds since the frame compile started
   */
  elapsed_s: number;
  /**
   * Seconds spent per step so far, in the order they ran (the current one included).
   */
  phase_seconds: {
    [k: string]: number;
  };
  /**
   * kernels the generated code compiles, once known
   */
  kernels_total: number | null;
  /**
   * of those, compiled so far (when torch reports it)
   */
  kernels_done: number | null;
  /**
   * `C++` or `Triton`
   */
  kernel_language: string;
}
/**
 * Calls of a target that ran eagerly under a `torch.compiler.set_stance` stance (`force_eager`; `eager_on_recompile` when no compiled code fitted the call), or that `fail_on_recompile` refused (raised: they would have compiled).
 */
export interface EagerRuns {
  /**
   * force_eager | eager_on_recompile | fail_on_recompile
   */
  stance: string;
  /**
   * calls
   */
  count: number;
  /**
   * execution counts of their cells
   */
  cells: number[];
}
/**
 * One call of a target under CUDA-graph trees, as torch's tree manager ran its graphs: warmed up (run eagerly once, in the graph pool), recorded, replayed, or sent to eager.
 */
export interface CudagraphCall {
  /**
   * the call's number among all calls of the target's compiled function, from its first (0: not known, a function whose calls nbcompile cannot count; see `core/notebook/targets/running.py`)
   */
  call: number;
  /**
   * execution count of the cell that made the call
   */
  cell?: number | null;
  /**
   * graph runs that warmed up (the tree's `run_eager`, first run)
   */
  warmups?: number;
  /**
   * graphs recorded (the tree's `record_function`), re-records too
   */
  recordings?: number;
  /**
   * recorded graphs replayed (the tree's `execute_node`)
   */
  replays?: number;
  /**
   * graph runs torch ran eagerly after warm-up (not as CUDA graphs)
   */
  eager?: number;
  /**
   * the recordings that recorded a graph again (a recorded one's check failed), why
   */
  rerecords?: CudagraphRerecord[];
  /**
   * sizes first seen here
   */
  new_shapes?: CudagraphShape[];
  /**
   * torch's message when it gave up on a graph and runs it eagerly from now on (past `cudagraph_unexpected_rerecord_limit`); empty: none
   */
  fell_back?: string;
  /**
   * bytes reserved by the CUDA-graph trees' private memory pool before and after the call (None: not read); `pool_source` says how they were read
   */
  pool_before?: number | null;
  pool_after?: number | null;
  pool_source?: string;
  /**
   * what happened, in the words the summary's line and the inspector show
   */
  what?: string;
  /**
   * the graph runs of a backward pass after call `call` (`loss.backward()`: outside the target's calls; torch's lines say so, `replays` not counted there)
   */
  backward?: boolean;
}
/**
 * A CUDA graph torch recorded again because an input changed (CUDA-graph trees' `check_invariants`), in torch's words.
 */
export interface CudagraphRerecord {
  /**
   * the compile whose graph was recorded again (`"0/1"`)
   */
  compile_id: string;
  /**
   * torch's reason (`CheckInvariantStatus`): `static input data pointer changed`
   */
  reason: string;
  /**
   * the graph inputs whose pointer changed
   */
  inputs?: string[];
  /**
   * the user's source line torch gave for the first of those inputs, when it gave one
   */
  line?: string;
}
/**
 * An input size a compile's CUDA graph was first recorded for (torch's symint key).
 */
export interface CudagraphShape {
  /**
   * the compile (`"0/1"`)
   */
  compile_id: string;
  /**
   * torch's key of dynamic sizes (`(48,)`); `static` for a graph without any
   */
  key: string;
  /**
   * execution count of the cell whose call recorded it
   */
  cell?: number | null;
}
/**
 * A target's CUDA graphs per input size: one recording per distinct size.
 */
export interface CudagraphShapes {
  /**
   * each size, in order seen
   */
  shapes: CudagraphShape[];
  /**
   * torch's warning limit on distinct sizes per graph and the config that sets it (`torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit`); None: off
   */
  warn_limit?: number | null;
  warn_limit_config?: string;
  /**
   * what fits when sizes keep coming (empty: nothing to do yet)
   */
  remedy?: string;
}
/**
 * User names found after a cell holding CUDA-graph outputs that are no longer theirs: `overwritten` (torch marked the output when a later call started a new generation of the trees: reading it raises torch's error) or `shared` (names holding a tensor a replay hands back again and writes into, with no error: several names made one tensor, or one name whose tensor a later replay wrote). Worded once, in Python: the cell's output, the summary and the inspector show `text`.
 */
export interface CudagraphHazard {
  kind: 'overwritten' | 'shared';
  /**
   * execution count of the cell after which it was found
   */
  cell: number | null;
  names?: CudagraphHazardName[];
  /**
   * overwritten gradients (`.grad`): torch's advice differs
   */
  gradient?: boolean;
  /**
   * what happened and the fix, in words
   */
  text?: string;
}
/**
 * A user's name in a CUDA-graph hazard: `y1`, `preds[0]`.
 */
export interface CudagraphHazardName {
  name: string;
  /**
   * execution count of the cell that bound it (None: not known)
   */
  bound_in?: number | null;
  /**
   * overwritten: the function whose call overwrote it ("": not known which)
   */
  by?: string;
}
/**
 * The result of `compare()`: one row per mode, eager first.
 */
export interface Comparison {
  /**
   * the function's `__name__` (or the module's class name)
   */
  name: string;
  /**
   * eager first, then one per mode
   */
  rows: TimingRow[];
  /**
   * device of the first tensor argument (`cpu`, `cuda:0`)
   */
  device: string;
  /**
   * `torch.get_num_threads()`, held for every measurement
   */
  num_threads: number;
  /**
   * the steady-state measurement budget (compiles come on top)
   */
  budget_s: number;
  /**
   * wall time of the whole comparison, compiles included
   */
  elapsed_s: number;
  /**
   * Where `elapsed_s` went: `first calls` (compiles), `memory`, `timed calls` (what `budget_s` bounds), `explaining profile`, `other`
   */
  phases_s?: {
    [k: string]: number;
  };
  /**
   * each row's memory was measured (`memory=True`)
   */
  memory_measured?: boolean;
  /**
   * smallest relative difference called significant
   */
  min_effect: number;
  /**
   * e.g. `Tensor[256, 1024] float32 cpu`
   */
  inputs: string[];
  /**
   * `torch`, `python`, `machine`, `cpu_count`, `processor` (`gpu`)
   */
  environment: {
    [k: string]: string;
  };
  /**
   * ISO 8601, UTC
   */
  created_at: string;
  /**
   * comparison-wide notes
   */
  notes: string[];
  /**
   * level of the median speedup's confidence interval
   */
  confidence?: number;
  /**
   * fewest paired repeats for a verdict
   */
  min_verdict_repeats?: number;
  /**
   * widest interval (upper / lower) for a verdict
   */
  max_ci_ratio?: number;
  /**
   * Inputs the call changes in place (`args[0]`); timed on copies, the user's unchanged
   */
  mutated_inputs?: string[];
  /**
   * the call draws random numbers (same RNG start for every mode)
   */
  random_ops?: boolean;
  /**
   * lines the function printed (captured, not shown)
   */
  captured_output_lines?: number;
  /**
   * Stopped by Ctrl-C: the rows hold what was measured until then (see `notes`)
   */
  interrupted?: boolean;
  schema_version: 1;
  record: 'timing';
  /**
   * fastest mode significantly faster than eager and numerically right
   */
  best: string | null;
}
/**
 * The measurements of one mode (or backend); eager is the baseline row.
 */
export interface TimingRow {
  /**
   * `eager`, an Inductor mode, a Dynamo backend name, or `backend:<name>`
   */
  mode: string;
  /**
   * eager | mode | backend
   */
  kind: string;
  /**
   * `inductor` for modes, the backend's name, `""` for eager
   */
  backend: string;
  /**
   * ok | failed
   */
  status: string;
  /**
   * `Type: first line` when failed
   */
  error: string;
  /**
   * the first call (compile + one run), timed apart
   */
  first_call_s: number | null;
  /**
   * `first_call_s` minus the steady-state median
   */
  compile_s: number | null;
  /**
   * per-call run time over the repeats (warm-up excluded)
   */
  median_s: number | null;
  /**
   * first quartile of the per-call run time
   */
  q1_s: number | null;
  /**
   * third quartile of the per-call run time
   */
  q3_s: number | null;
  /**
   * interquartile range of the per-call run time
   */
  iqr_s: number | null;
  /**
   * interleaved repeats
   */
  repeats: number;
  /**
   * calls per timed block
   */
  calls_per_repeat: number;
  /**
   * median of the per-repeat ratios eager/mode
   */
  speedup: number | null;
  /**
   * first quartile of those ratios
   */
  speedup_q1: number | null;
  /**
   * third quartile of those ratios
   */
  speedup_q3: number | null;
  /**
   * The `confidence` interval of the median paired speedup (order statistics)
   */
  speedup_ci_low?: number | null;
  /**
   * upper bound of that interval
   */
  speedup_ci_high?: number | null;
  /**
   * At least `min_verdict_repeats` repeats, the interval excluding 1.0 and the effect >= `min_effect` (however wide the interval; see `core/perf/verdict.py`)
   */
  significant: boolean;
  /**
   * whether the run-time IQRs of mode and eager overlap
   */
  spreads_overlap: boolean | null;
  /**
   * baseline | faster | slower | no significant difference | inconclusive on this machine now | failed
   */
  verdict: string;
  /**
   * Max absolute difference of the outputs (and inputs and state changed in place) to eager's (null: structure differs, NaN mismatch, random numbers drawn differently, or nothing comparable, e.g. a generator)
   */
  max_abs_diff: number | null;
  /**
   * within `tolerance` of eager's output, changed inputs and state (null: not comparable)
   */
  numerics_ok: boolean | null;
  /**
   * e.g. `torch.float32: rtol=0.001, atol=0.0001`, or `exact`
   */
  tolerance: string;
  /**
   * Peak tensor bytes in use during one call, above those in use before it (CPU: torch.profiler's allocation events; CUDA: `max_memory_allocated`); null: not measured
   */
  peak_memory_bytes: number | null;
  /**
   * how memory was measured, or why it was not
   */
  memory_note: string;
  /**
   * bytes allocated during one call
   */
  allocated_bytes?: number | null;
  /**
   * `peak_memory_bytes` over eager's
   */
  peak_memory_ratio?: number | null;
  /**
   * e.g. `0.25x eager's peak`; `baseline` for eager
   */
  memory_verdict?: string;
  /**
   * Activations one call's forward saved for backward (storages the call created; parameters and inputs it saved are held anyway); null: nothing saved
   */
  saved_bytes?: number | null;
  /**
   * CUDA: bytes still allocated after the mode's compile and warm-up, beyond those before it (for reduce-overhead: its CUDA graph memory pool's growth, a floor when the shared pool had free room); null off CUDA, or when a shared CUDA-graph pool with free room did not grow (not known: a note says)
   */
  held_bytes?: number | null;
  /**
   * this row's compile cache hits/misses
   */
  cache: {
    [k: string]: number;
  };
  /**
   * e.g. `numerics differ from eager ...`
   */
  notes: string[];
  /**
   * per-call time of each repeat's block
   */
  times_s: number[];
  /**
   * Why this mode is not faster than eager, from a measured profile (`core/perf/explain.py`)
   */
  explanations?: Explanation[];
  /**
   * Why this mode needs more memory than eager, each naming its measured numbers
   */
  memory_explanations?: Explanation[];
}
/**
 * Why a compiled mode is not faster than eager, or needs more memory, from measurements.
 */
export interface Explanation {
  /**
   * overhead | extern | graph-breaks | recompiles | kernels | cudagraph-pool | held-between-calls | saved-for-backward | live-across-breaks | functionalized-mutation | buffers
   */
  kind: string;
  /**
   * in words, naming the numbers below
   */
  message: string;
  /**
   * the measured numbers
   */
  evidence: {
    [k: string]: number;
  };
  /**
   * source lines it points at
   */
  lines: number[];
}
/**
 * The result of `profile()`: kernels, source lines and the per-call time budget.
 */
export interface Profile {
  /**
   * the profiled function or module
   */
  name: string;
  /**
   * profiled calls
   */
  repeat: number;
  /**
   * slowest first
   */
  kernels: KernelTime[];
  /**
   * every line of the target's source
   */
  lines: LineTime[];
  /**
   * the source file of `lines`
   */
  filename: string;
  /**
   * measured wall time per compiled call
   */
  wall_s: number;
  /**
   * sum of `kernels[].total_s` / `repeat`
   */
  kernel_s: number;
  /**
   * per call: Python and eager ops between graphs
   */
  outside_graphs_s: number;
  /**
   * per call: guards, torch.compile/AOT wrappers, launches, allocs
   */
  overhead_s: number;
  /**
   * per call: wall time around the profiled call window
   */
  unaccounted_s: number;
  /**
   * kernel time per call not tied to any line of the target
   */
  untied_s: number;
  /**
   * wall time per eager call
   */
  eager_wall_s: number;
  /**
   * eager time per call outside the target's own lines
   */
  eager_untied_s: number;
  /**
   * kernels + outside graphs + overhead within 10 % of the wall
   */
  accounted: boolean;
  /**
   * compile ids of the profiled copy
   */
  compiles: string[];
  recompiles_during_profile: number;
  /**
   * what is missing, what is not tied
   */
  notes: string[];
  /**
   * of the profiled copy
   */
  graph_breaks?: GraphBreak[];
  /**
   * peak and allocated bytes of one call, compiled and eager (null: not measured)
   */
  memory?: ProfileMemory | null;
  /**
   * Ctrl-C stopped it: what was measured (see notes[0])
   */
  interrupted?: boolean;
  schema_version: number;
  record: string;
  /**
   * each notebook cell's code file the record names (a break's file), as written there -> the cell as the notebook names it (`cell [2]`) (published)
   */
  cell_names?: {
    [k: string]: string;
  };
  /**
   * set when published with some kernels or lines left out
   */
  truncated?: boolean;
  /**
   * kernels or lines left out of a published output to keep it within its byte budget (`how` gets them)
   */
  omitted?: Omission[];
}
/**
 * Measured time of one generated kernel or extern call, over all profiled calls.
 */
export interface KernelTime {
  /**
   * as in the report's kernels, or the profiler event's name
   */
  name: string;
  /**
   * kernel | extern | other (allocations, views, unknown ops)
   */
  kind: string;
  /**
   * launches over all profiled calls
   */
  calls: number;
  /**
   * time over all profiled calls
   */
  total_s: number;
  /**
   * per launch
   */
  mean_s: number;
  /**
   * of all kernel time
   */
  share: number;
  /**
   * the copy's compile that generated it ("" if none matched)
   */
  compile_id: string;
  /**
   * inference | forward | backward
   */
  stage: string;
  /**
   * the profiler event name
   */
  event: string;
  /**
   * in `Profile.filename`; empty: not tied
   */
  lines: number[];
  /**
   * bytes allocated in one call for the buffers it writes (an allocation between two launches of a graph goes to the next launch: Inductor allocates just before use)
   */
  allocated_bytes?: number;
}
/**
 * One source line of the target: compiled and eager seconds per call.
 */
export interface LineTime {
  lineno: number;
  /**
   * the source text
   */
  line: string;
  /**
   * kernel time per call (a fused kernel split over its lines)
   */
  compiled_s: number;
  /**
   * eager time per call, inclusive of what the line calls
   */
  eager_s: number;
  /**
   * names of the kernels it fed
   */
  kernels: string[];
  /**
   * bytes its kernels allocated in one compiled call (a fused kernel's split evenly)
   */
  compiled_allocated_bytes?: number;
  /**
   * bytes allocated on this line in one eager call
   */
  eager_allocated_bytes?: number;
  /**
   * the part of `compiled_s` from backward kernels: a forward line feeds them, while eager runs that backward at the line that calls `backward()`
   */
  compiled_backward_s?: number;
  /**
   * eager over compiled time of the same work: the line's forward kernels (null unless both)
   */
  speedup: number | null;
}
/**
 * Where the memory of one call goes, compiled and eager (`Profile.memory`).
 */
export interface ProfileMemory {
  /**
   * `cpu` or `cuda:0`
   */
  device: string;
  /**
   * compiled: peak tensor bytes in use during one call
   */
  peak_bytes: number | null;
  /**
   * the same call run eagerly
   */
  eager_peak_bytes: number | null;
  /**
   * compiled: bytes allocated during one call
   */
  allocated_bytes: number | null;
  /**
   * eager: bytes allocated during one call
   */
  eager_allocated_bytes: number | null;
  /**
   * compiled: bytes allocated outside any graph (eager ops and Python between graphs)
   */
  outside_graphs_allocated_bytes: number;
  /**
   * compiled: bytes allocated by kernels not tied to a line of the target
   */
  untied_allocated_bytes: number;
  /**
   * eager: bytes allocated outside the target's own lines (module call machinery ...)
   */
  eager_untied_allocated_bytes: number;
  /**
   * activations the forward saved for backward (null: nothing was saved)
   */
  saved_bytes: number | null;
  /**
   * the same, eager
   */
  eager_saved_bytes: number | null;
  /**
   * bytes in use between two graphs: intermediates a graph break keeps alive (largest)
   */
  across_breaks_bytes: number;
  /**
   * compiled, one call
   */
  timeline: MemoryPoint[];
  /**
   * eager, one call
   */
  eager_timeline: MemoryPoint[];
  /**
   * how it was measured
   */
  note: string;
  /**
   * what could not be measured or tied
   */
  notes: string[];
}
/**
 * Bytes in use at one moment of one call (a step of the memory timeline).
 */
export interface MemoryPoint {
  /**
   * seconds since the call started
   */
  t_s: number;
  /**
   * tensor bytes in use, above those in use just before the call
   */
  bytes: number;
  /**
   * what allocated or freed at this point: a kernel, an op, `line N`
   */
  what: string;
}
/**
 * What `suggest()` returns: `baseline`, `problems` and `items`.
 */
export interface Suggestions {
  /**
   * the function or module class
   */
  name: string;
  baseline: Measured;
  /**
   * the baseline's breaks, recompiles
   */
  problems: Problem[];
  /**
   * one per proposed change
   */
  items: Suggestion[];
  /**
   * calls replayed per trial
   */
  calls: number;
  /**
   * seconds allowed for all trials
   */
  budget_s: number;
  /**
   * seconds the trials took
   */
  elapsed_s: number;
  notes: string[];
  /**
   * Ctrl-C stopped it: the trials done so far (see notes[0])
   */
  interrupted?: boolean;
  schema_version: number;
  record: string;
  /**
   * each notebook cell's code file the record names, as written there -> the cell as the notebook names it (`cell [2]`) (published)
   */
  cell_names?: {
    [k: string]: string;
  };
}
/**
 * a fresh copy compiled as it is, the calls replayed
 */
export interface Measured {
  /**
   * graphs compiled over the calls
   */
  graphs: number;
  /**
   * graph breaks
   */
  breaks: number;
  /**
   * compiles after a guard of this setup's own versions failed
   */
  recompiles: number;
  /**
   * median steady-state time of one pass over the calls
   */
  time_s: number | null;
  /**
   * the trial failed: the exception
   */
  error: string;
  /**
   * e.g. Dynamo frame compiles during the timed passes
   */
  timing_note: string;
}
/**
 * A graph break or recompile of the baseline: reason and where.
 */
export interface Problem {
  /**
   * graph_break | recompile
   */
  kind: string;
  reason: string;
  filename: string | null;
  lineno: number | null;
  line: string;
  /**
   * the break is inside code the user cannot edit
   */
  in_library: boolean;
}
/**
 * One proposed change and what trying it on a copy showed.
 */
export interface Suggestion {
  problem: Problem1;
  /**
   * setting | option | rewrite
   */
  kind: string;
  /**
   * the exact thing to do, as code
   */
  change: string;
  /**
   * fewer breaks (or recompiles) on the copy and the same result
   */
  verified: boolean;
  /**
   * verified | tried, did not help | not tried
   */
  status: string;
  /**
   * the trial on a copy (null: not tried)
   */
  after: Measured1 | null;
  same_result: SameResult;
  /**
   * what it costs or risks, what happened
   */
  note: string;
}
/**
 * A graph break or recompile of the baseline: reason and where.
 */
export interface Problem1 {
  /**
   * graph_break | recompile
   */
  kind: string;
  reason: string;
  filename: string | null;
  lineno: number | null;
  line: string;
  /**
   * the break is inside code the user cannot edit
   */
  in_library: boolean;
}
/**
 * Counts and run time of one setup (the baseline, or a trial on a copy).
 */
export interface Measured1 {
  /**
   * graphs compiled over the calls
   */
  graphs: number;
  /**
   * graph breaks
   */
  breaks: number;
  /**
   * compiles after a guard of this setup's own versions failed
   */
  recompiles: number;
  /**
   * median steady-state time of one pass over the calls
   */
  time_s: number | null;
  /**
   * the trial failed: the exception
   */
  error: string;
  /**
   * e.g. Dynamo frame compiles during the timed passes
   */
  timing_note: string;
}
/**
 * vs the eager original
 */
export interface SameResult {
  /**
   * within the dtype's tolerance (null: not run, or not comparable)
   */
  ok: boolean | null;
  /**
   * largest absolute difference to eager's output
   */
  max_abs_diff: number | null;
  tolerance: string;
  notes: string[];
}
/**
 * A TORCH_TRACE run (one log file or a directory of per-rank logs).
 */
export interface TraceRecord {
  /**
   * the log file or directory opened
   */
  path: string;
  /**
   * sorted; empty when no rank is known
   */
  ranks: number[];
  /**
   * log order, every rank
   */
  compiles: TraceCompile[];
  /**
   * "file:line: what was wrong"
   */
  problems: string[];
  /**
   * the trace files read
   */
  files: string[];
  /**
   * event kind -> count
   */
  unknown_events: {
    [k: string]: number;
  };
  /**
   * trace lines read
   */
  events: number;
  /**
   * bytes of log indexed
   */
  bytes_read?: number;
  /**
   * Ctrl-C stopped it: only the files read whole are in (problems[0] names the rest)
   */
  interrupted?: boolean;
  schema_version: 1;
  record: 'trace';
  /**
   * where the ranks compiled differently
   */
  divergences: Divergence[];
  /**
   * set when published inline and some text was capped
   */
  truncated?: boolean;
  /**
   * parts left out of a published output to keep it within its byte budget (`how` gets them)
   */
  omitted?: Omission[];
}
/**
 * One Dynamo compile attempt read from a trace (`compile_id` like `0/0`, `0/0_1`).
 */
export interface TraceCompile {
  /**
   * the rank whose log holds it (null when no rank is known)
   */
  rank: number | null;
  /**
   * as Dynamo writes it, without brackets: "0/0", "1/2", "0/0_1"
   */
  compile_id: string;
  /**
   * "fn file:line" of the frame being compiled
   */
  frame: string;
  /**
   * the frame's function name
   */
  function: string;
  /**
   * the frame's file
   */
  filename: string;
  /**
   * the frame's first line
   */
  lineno: number;
  status: 'compiled' | 'failed' | 'restarted' | 'cache_hit';
  /**
   * why the compile failed or restarted ("" when it compiled)
   */
  fail_reason: string;
  /**
   * from compilation_metrics
   */
  compile_time_s: number;
  /**
   * compilation_metrics
   */
  metric_phases: {
    [k: string]: number;
  };
  /**
   * hits and misses per cache layer
   */
  cache: {
    [k: string]: number;
  };
  /**
   * user stack, outermost first
   */
  stack: SourceLine[];
  /**
   * file:line of the compile's first event
   */
  log: string;
  /**
   * seconds per compile phase (metrics and chromium events)
   */
  phases: {
    [k: string]: number;
  };
  /**
   * the compile's graph breaks
   */
  graph_breaks: GraphBreak[];
  /**
   * why this compile recompiled an earlier one (or "")
   */
  recompile_reason: string;
  /**
   * the guard that failed, when known (or "")
   */
  recompile_guard: string;
  /**
   * the guards Dynamo installed
   */
  guards: string;
  /**
   * the FX graphs, as readable code
   */
  graphs: string[];
  /**
   * every piece of generated code
   */
  kernels: Kernel[];
  /**
   * the generated module(s)
   */
  output_code: string;
  /**
   * the collectives Inductor scheduled, in order (its inductor_collective_schedule: kernel names such as torch.ops._c10d_functional.all_reduce_.default)
   */
  collectives: string[];
  /**
   * what torch runs in place of the frame, as far as the log holds it: a resume function's bytecode (torch logs no other), else the problem says it is not in this log
   */
  runs_as?: RunsAs | null;
  /**
   * published without its contents (breaks, guards, graphs, code) to keep the output within its byte budget
   */
  contents_omitted?: boolean;
}
/**
 * Ranks that compiled differently: `kind`, the `groups` of ranks that agree, and `detail` (what differs, first place).
 */
export interface Divergence {
  kind: 'compile_ids' | 'collectives' | 'cache' | 'graphs' | 'guards';
  /**
   * ranks that agree with each other, one list per variant
   */
  groups: number[][];
  /**
   * what differs, first place
   */
  detail: string;
  /**
   * the first compile id where it shows
   */
  compile_id: string;
}
/**
 * What `diagnose()` returns: does compiled code crash or change the numbers, in which layer, at which op and line, who is right, and which workarounds help.
 */
export interface Diagnosis {
  /**
   * the function or module class
   */
  name: string;
  /**
   * crash | accuracy | ok, against eager (not run: no verdict, interrupted before one or nothing the call produced can be compared, e.g. a generator)
   */
  kind: 'crash' | 'accuracy' | 'ok' | 'not run';
  /**
   * the first rung of the ladder that shows the problem
   */
  layer: ('dynamo' | 'aot_autograd' | 'inductor') | null;
  /**
   * the verdict in words (shown after the kind)
   */
  summary: string;
  /**
   * the ladder, lowest rung first
   */
  rungs: Rung[];
  /**
   * the graph, op or kernel that brings the problem in ("" when not found)
   */
  culprit: string;
  /**
   * where the culprit's line is
   */
  filename: string | null;
  /**
   * the culprit's line (1-based)
   */
  lineno: number | null;
  /**
   * its source text
   */
  line: string;
  /**
   * torch's CompilerBisector's answer (null: not run)
   */
  bisection: Bisection | null;
  /**
   * compiled vs eager before any workaround
   */
  max_abs_diff: number | null;
  /**
   * elements outside the tolerance before any workaround
   */
  mismatched: number | null;
  /**
   * elements compared
   */
  numel: number;
  /**
   * the tolerance used: assert_close's default for each dtype
   */
  tolerance: string;
  /**
   * the crash: exception type and its first line
   */
  error: string;
  /**
   * the crash's message, capped
   */
  error_detail: string;
  /**
   * the float64 run (accuracy only; null: none)
   */
  reference: Reference | null;
  workarounds: Workaround[];
  /**
   * the arguments, described
   */
  inputs: string[];
  /**
   * the compile options diagnosed (the user's, when nbcompile knows them)
   */
  options: string;
  /**
   * median time of an eager call
   */
  eager_time_s: number | null;
  /**
   * median time of a compiled call (null: it crashed)
   */
  compiled_time_s: number | null;
  /**
   * seconds allowed
   */
  budget_s: number;
  /**
   * seconds it took
   */
  elapsed_s: number;
  /**
   * steps left out, and why
   */
  skipped: string[];
  notes: string[];
  /**
   * on a CUDA GPU, the reduced matmul precision torch's settings put in force for what the graphs compute ("TF32 matmuls", ...; a note explains them); [] none, or not on CUDA
   */
  matmul_precision?: string[];
  /**
   * texts were cut to fit the output budget (the kernel has them)
   */
  truncated: boolean;
  /**
   * Ctrl-C stopped it: what was established so far (see notes[0])
   */
  interrupted?: boolean;
  schema_version: 1;
  record: 'diagnosis';
  /**
   * each notebook cell's code file the record names, as written there -> the cell as the notebook names it (`cell [2]`) (published)
   */
  cell_names?: {
    [k: string]: string;
  };
}
/**
 * One rung of the ladder: a fresh copy compiled with one backend, judged against eager.
 */
export interface Rung {
  /**
   * torch.compile backend: eager, aot_eager, aot_eager_decomp_partition, inductor
   */
  backend: string;
  /**
   * the compiler layer this rung adds to the one below it
   */
  layer: 'dynamo' | 'aot_autograd' | 'inductor';
  outcome: 'ok' | 'accuracy' | 'crash' | 'not run';
  /**
   * largest abs difference to eager (null: none measured)
   */
  max_abs_diff: number | null;
  /**
   * elements outside the tolerance (null: none measured)
   */
  mismatched: number | null;
  /**
   * elements compared
   */
  numel: number;
  /**
   * the crash: exception type and its first line
   */
  error: string;
  /**
   * the first call: compile and run
   */
  first_call_s: number | null;
  /**
   * median time of a later call
   */
  time_s: number | null;
  /**
   * compile options besides the backend (the user's, on the top rung)
   */
  options: string;
  /**
   * why it did not run, or what to know about it
   */
  note: string;
}
/**
 * What torch's `CompilerBisector` found: the backend, the compiler subsystem and the application of it (e.g. the lowering of one node) that brings the problem in.
 */
export interface Bisection {
  /**
   * the first backend that shows the problem ("" when none did)
   */
  backend: string;
  /**
   * e.g. lowerings, decomposition, post_grad_passes ("" when none found)
   */
  subsystem: string;
  /**
   * which application of the subsystem (0-based)
   */
  bisect_number: number | null;
  /**
   * torch's note on it: a node name for lowerings, an op for decompositions
   */
  debug_info: string;
  /**
   * compiles the bisection ran
   */
  steps: number;
  /**
   * seconds it took
   */
  elapsed_s: number;
  /**
   * stopped early, or found nothing
   */
  note: string;
}
/**
 * The same function run in float64: who is closer to it, eager or compiled. Made eagerly with floating inputs and parameters upcast, or, for a function that casts inside, through its captured graph with every cast rewritten to float64 (torch's `cast_to_fp64`); `note` says which, or why there is none.
 */
export interface Reference {
  dtype: string;
  /**
   * largest abs difference of eager's result to float64's
   */
  eager_error: number | null;
  /**
   * the same for the compiled result
   */
  compiled_error: number | null;
  /**
   * mean abs difference of eager's result to float64's
   */
  eager_mean_error: number | null;
  /**
   * the same for the compiled result
   */
  compiled_mean_error: number | null;
  /**
   * the one whose largest error is at most 0.8 of the other's; neither when they are close; unknown when there is no reference (no verdict: the note says why)
   */
  closer: 'eager' | 'compiled' | 'neither' | 'unknown';
  /**
   * how it was made, or why there is none
   */
  note: string;
}
/**
 * A change tried on a copy, with its measured effect and its cost in time.
 */
export interface Workaround {
  /**
   * setting | backend | disable | upcast
   */
  kind: string;
  /**
   * the change, as code
   */
  change: string;
  /**
   * on the copy it removes the crash, or brings the result within tolerance
   */
  verified: boolean;
  status: 'verified' | 'tried, did not help' | 'not tried';
  /**
   * the copy's result judged against eager
   */
  outcome: 'ok' | 'accuracy' | 'crash' | 'not run';
  /**
   * largest abs difference to eager after the change
   */
  max_abs_diff: number | null;
  /**
   * elements outside the tolerance after the change
   */
  mismatched: number | null;
  /**
   * elements compared
   */
  numel: number;
  /**
   * the copy's first call: compile and run
   */
  first_call_s: number | null;
  /**
   * median time of a later call
   */
  time_s: number | null;
  /**
   * the time against the compiled (or eager) call, in words
   */
  cost: string;
  /**
   * largest abs difference of the changed copy's result to the float64 run (null: none)
   */
  reference_error: number | null;
  /**
   * the copy crashed: exception type and its first line
   */
  error: string;
  /**
   * what it changes, what it costs or risks, why it was not tried
   */
  note: string;
}
/**
 * The result of `compile_time()`: the cold and warm-restart first calls of fresh processes, where the seconds went, and each remedy tried.
 */
export interface CompileTime {
  /**
   * the function's `__name__` (or the module's class name)
   */
  name: string;
  /**
   * first call in a fresh process with empty caches
   */
  cold_s: number | null;
  /**
   * first call in a fresh process with a warm cache
   */
  warm_restart_s: number | null;
  /**
   * steady-state run time of the compiled call
   */
  steady_s: number | null;
  where: Where;
  /**
   * one per kind, in order
   */
  remedies: Remedy[];
  /**
   * every child process, in order
   */
  runs: FreshRun[];
  /**
   * This kernel's compiles of the call's code (heard since `%load_ext`): each cache layer's outcome and what differed in the key from the frame's previous compile
   */
  kernel_compiles: FrameTime[];
  /**
   * how the call was carried into the fresh processes
   */
  how: string;
  /**
   * the fresh processes could rebuild the call
   */
  reproducible: boolean;
  /**
   * the wall-time budget (0: none)
   */
  budget_s: number;
  /**
   * wall time of the whole measurement
   */
  elapsed_s: number;
  /**
   * e.g. `Tensor[2, 16] float32 cpu`
   */
  inputs: string[];
  /**
   * torch, python, machine
   */
  environment: {
    [k: string]: string;
  };
  /**
   * ISO 8601, UTC
   */
  created_at: string;
  notes: string[];
  /**
   * stopped by Ctrl-C: what was measured until then
   */
  interrupted: boolean;
  /**
   * texts or frames cut to the output budget when published
   */
  truncated: boolean;
  schema_version: 1;
  record: 'compile_time';
}
/**
 * the split of the cold compile
 */
export interface Where {
  /**
   * all frame compiles together
   */
  total_s: number;
  /**
   * summed over frame compiles
   */
  phases: {
    [k: string]: number;
  };
  /**
   * one per frame compile, in order
   */
  frames: FrameTime[];
  /**
   * seconds spent in recompiles
   */
  recompile_s: number;
  /**
   * blocks traced N times
   */
  repeated: RepeatedBlock[];
  /**
   * `layer outcome` -> count, e.g. `{"fx_graph miss": 1, "aotautograd hit": 2}`
   */
  caches: {
    [k: string]: number;
  };
}
/**
 * One frame compile: its seconds, phases and cache layers.
 */
export interface FrameTime {
  /**
   * `"0/1"`: frame 0, its second compile
   */
  compile_id: string;
  /**
   * the code compiled (function name)
   */
  frame: string;
  filename: string;
  /**
   * the code's first line
   */
  lineno: number;
  /**
   * the whole frame compile, as torch measured it
   */
  seconds: number;
  /**
   * exclusive seconds per phase
   */
  phases: {
    [k: string]: number;
  };
  /**
   * ops in the frame's graphs
   */
  graph_op_count: number;
  /**
   * a recompile of a frame compiled before
   */
  recompile: boolean;
  /**
   * the failed guard(s), in words
   */
  recompile_reason: string;
  /**
   * each layer's outcome
   */
  caches: CacheOutcome[];
  /**
   * Components of the cache key that differ from the previous compile of this frame
   */
  key_changes: KeyChange[];
  /**
   * why a cache missed, in words (or that torch gave no reason)
   */
  cache_note: string;
  /**
   * this frame's compile in an earlier kernel of this notebook (when this kernel had not compiled it before): `key_changes` then compare with that compile
   */
  earlier?: EarlierCompile | null;
}
/**
 * One cache layer's answer to one compile, in torch's words.
 */
export interface CacheOutcome {
  /**
   * fx_graph | aotautograd | autotune | portable
   */
  layer: string;
  /**
   * hit | miss | bypass (torch's `cache_state`)
   */
  outcome: string;
  /**
   * torch's `cache_status_detailed` (e.g. `full_miss`, `guard_miss`)
   */
  detail: string;
  /**
   * torch's bypass reason; empty when torch gave none
   */
  reason: string;
  /**
   * the cache key looked up
   */
  key: string;
  /**
   * compile time the hit saved, as torch measured it
   */
  time_saved_s: number | null;
}
/**
 * One component of a cache key that differs from the previous compile of the frame (read from torch's own key details: `[hash] name: value` lines).
 */
export interface KeyChange {
  /**
   * fx_graph | aotautograd
   */
  layer: string;
  /**
   * torch's component name (`fx_kwargs`, `inductor_config`, `gm`...)
   */
  component: string;
  /**
   * inductor_option | graph | inputs | torch_version | other
   */
  kind: string;
  /**
   * what differed, in words
   */
  words: string;
  /**
   * the previous value (capped)
   */
  before: string;
  /**
   * this compile's value (capped)
   */
  after: string;
}
/**
 * The newest compile of the same frame in an earlier kernel of this notebook, read from the cache-key components that kernel saved (`earlier.py`).
 */
export interface EarlierCompile {
  /**
   * when that kernel saved it, ISO 8601 UTC
   */
  saved_at: string;
  /**
   * its compile id there
   */
  compile_id: string;
  /**
   * the same file and line, or a cell with the same text
   */
  same_cell: boolean;
  /**
   * every compared layer's key components equal (None: torch gave no components to compare)
   */
  same_key: boolean | null;
  /**
   * what differed, in words (or that nothing did, or that torch said nothing)
   */
  words: string;
}
/**
 * Identical modules (same class, same structure) traced once each: their code is inlined into the graph again and again.
 */
export interface RepeatedBlock {
  /**
   * where they are in the module tree (`blocks`, `transformer.h`)
   */
  path: string;
  /**
   * their class name
   */
  cls: string;
  /**
   * how many
   */
  count: number;
  /**
   * Times the block's forward appears in the traced graphs (from the graph's source lines)
   */
  traced_copies: number;
  /**
   * share of the graphs' ops that come from these blocks
   */
  node_share: number;
  /**
   * Dynamo and Inductor seconds estimated for them (phase time times `node_share`)
   */
  dynamo_s: number;
  inductor_s: number;
}
/**
 * One way to cut compile time, tried on fresh processes.
 */
export interface Remedy {
  kind: 'regional' | 'nested_region' | 'dynamic' | 'portable_cache' | 'precompiled';
  /**
   * the code a user would write
   */
  change: string;
  /**
   * verified | did not help | inconclusive | does not apply | failed | not reproducible | not tried
   */
  status: string;
  /**
   * a measured cut in cold or restart time, with the same outputs
   */
  verified: boolean;
  /**
   * first call with empty caches, after (median of rounds)
   */
  cold_s: number | null;
  /**
   * first call after a restart, after (median of rounds)
   */
  restart_s: number | null;
  /**
   * steady-state time after / before
   */
  steady_ratio: number | null;
  /**
   * outputs equal to eager's within the dtype's tolerance
   */
  same_result: boolean | null;
  /**
   * against eager's output
   */
  max_abs_diff: number | null;
  /**
   * the numbers in words, or torch's words for why it does not apply
   */
  note: string;
  /**
   * The baseline's first call in each alternated round (cold, with empty caches)
   */
  rounds_before_s?: number[];
  /**
   * The remedy's first call in the same rounds (cold, or after a restart), paired
   */
  rounds_after_s?: number[];
  /**
   * median cut per round of the time it targets (0.3: 30 % less)
   */
  cut?: number | null;
  /**
   * The interval of that cut the verdict rests on (with few rounds: their range)
   */
  cut_low?: number | null;
  cut_high?: number | null;
}
/**
 * One child process: what it ran and what it measured.
 */
export interface FreshRun {
  /**
   * baseline cold | baseline warm restart | regional cold | ...
   */
  label: string;
  /**
   * ok | failed | skipped
   */
  status: string;
  /**
   * `Type: first line` when failed
   */
  error: string;
  /**
   * first call(s): the compile and one run
   */
  first_call_s: number | null;
  /**
   * median run time after the first call
   */
  steady_s: number | null;
  /**
   * the child process from start to end, imports included
   */
  wall_s: number;
  /**
   * frame compiles the child saw
   */
  frames_compiled: number;
  /**
   * ops Dynamo traced into graphs (torch's `graph_op_count`, summed)
   */
  graph_ops: number;
  /**
   * `layer outcome` -> count
   */
  caches: {
    [k: string]: number;
  };
  /**
   * output equal to eager's within the dtype's tolerance
   */
  same_result: boolean | null;
  /**
   * against eager's output
   */
  max_abs_diff: number | null;
}
