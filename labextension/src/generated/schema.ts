/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs.
 * Do not edit: run `npm run gen:types`. Read by ../records/schema.ts. */

export const RECORD_SCHEMA: unknown = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "application/vnd.nbcompile.v1+json",
  "title": "nbcompile record, schema version 1",
  "description": "What the kernel publishes under the MIME type application/vnd.nbcompile.v1+json. Generated from the dataclasses in nbcompile/core/ (records.py, perf/comparison.py, perf/profile/record.py, fixes/record.py, logs/record.py, diagnosis/record.py) by `python -m nbcompile.schema.generate`: do not edit. Documented in docs/records.md.",
  "oneOf": [
    {
      "$ref": "#/$defs/SummaryRecord"
    },
    {
      "$ref": "#/$defs/TargetRecord"
    },
    {
      "$ref": "#/$defs/Comparison"
    },
    {
      "$ref": "#/$defs/Profile"
    },
    {
      "$ref": "#/$defs/Suggestions"
    },
    {
      "$ref": "#/$defs/TraceRecord"
    },
    {
      "$ref": "#/$defs/Diagnosis"
    },
    {
      "$ref": "#/$defs/CompileTime"
    }
  ],
  "x-nbcompile-limits": {
    "description": "Bytes of JSON (UTF-8): every record the kernel publishes in an output is within the output budget, at most max_record_bytes; the record sent to the Compile inspector on request at most max_whole_record_bytes.",
    "max_record_bytes": 8388608,
    "max_whole_record_bytes": 32000000,
    "default_output_budget": 262144
  },
  "$defs": {
    "SummaryRecord": {
      "title": "SummaryRecord",
      "type": "object",
      "description": "The live output of a `%%compile` cell (`display.payload.summary_payload`).",
      "properties": {
        "cell": {
          "$ref": "#/$defs/CellRef",
          "description": "the `%%compile` cell"
        },
        "updated_at": {
          "type": "number",
          "description": "Unix time of this update"
        },
        "targets": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/TargetRecord"
          },
          "description": "the cell's targets (published: capped), in order"
        },
        "schema_version": {
          "const": 1
        },
        "record": {
          "const": "summary"
        }
      },
      "required": [
        "cell",
        "updated_at",
        "targets",
        "schema_version",
        "record"
      ],
      "additionalProperties": false
    },
    "CellRef": {
      "title": "CellRef",
      "type": "object",
      "description": "The notebook cell that defined a target (a summary's may be empty).",
      "properties": {
        "filename": {
          "type": "string",
          "description": "the cell's code filename, as in tracebacks",
          "default": ""
        },
        "execution_count": {
          "type": [
            "integer",
            "null"
          ],
          "description": "the cell number the notebook shows",
          "default": null
        },
        "cell_id": {
          "type": [
            "string",
            "null"
          ],
          "description": "JupyterLab's cell id from the execute request, when known",
          "default": null
        }
      },
      "required": [],
      "additionalProperties": false
    },
    "TargetRecord": {
      "title": "TargetRecord",
      "type": "object",
      "description": "Everything known about one compiled target, as one JSON-ready record.",
      "properties": {
        "id": {
          "type": "string",
          "description": "unique per kernel session (`\"t3\"`); a re-run cell gets new ids"
        },
        "name": {
          "type": "string",
          "description": "the name in the user's namespace"
        },
        "kind": {
          "enum": [
            "function",
            "module"
          ]
        },
        "options": {
          "type": "object",
          "additionalProperties": {},
          "description": "`mode`, `fullgraph`, `dynamic`, `backend`, `options`, `disable` as given."
        },
        "status": {
          "enum": [
            "pending",
            "compiling",
            "compiled",
            "failed",
            "disabled",
            "not_compiled",
            "compiled_inside"
          ]
        },
        "wrapper": {
          "type": [
            "string",
            "null"
          ],
          "description": "the wrapper(s) the name holds, outermost first"
        },
        "compiled_object": {
          "type": "string",
          "description": "what was compiled, e.g. `torch.compile(fn)`"
        },
        "cell": {
          "$ref": "#/$defs/CellRef",
          "description": "the defining cell"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "things the user should know"
        },
        "error": {
          "anyOf": [
            {
              "$ref": "#/$defs/TargetError"
            },
            {
              "type": "null"
            }
          ],
          "description": "why the last compile failed"
        },
        "compiling_since": {
          "type": [
            "number",
            "null"
          ],
          "description": "Unix time a running compile started"
        },
        "compiles": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CompileRecord"
          },
          "description": "every frame compile"
        },
        "graph_count": {
          "type": "integer",
          "description": "FX graphs produced (a graph break splits a function)"
        },
        "graph_breaks": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/GraphBreak"
          },
          "description": "de-duplicated"
        },
        "recompiles": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Recompile"
          },
          "description": "in order"
        },
        "kernels": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Kernel"
          },
          "description": "every code piece of every compile"
        },
        "output_code": {
          "type": "string",
          "description": "every compile's generated module, each after a header line"
        },
        "compile_time_s": {
          "type": "number",
          "description": "sum of the compiles' `total_s`"
        },
        "annotations": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/LineAnnotation"
          },
          "description": "one per source line",
          "default": []
        },
        "no_kernel_lines": {
          "type": "string",
          "description": "Why none of the source lines maps to a kernel, in one sentence (the source pane shows it instead of lines that never light); \"\": a line does, or there is no kernel yet.",
          "default": ""
        },
        "code_diffs": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CodeDiff"
          },
          "description": "changes since last compile",
          "default": []
        },
        "advice": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Advice"
          },
          "description": "what to change, from patterns",
          "default": []
        },
        "preview": {
          "type": "string",
          "description": "e.g. \"triton\": generated code is a preview (--codegen triton)",
          "default": ""
        },
        "omitted": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Omission"
          },
          "description": "What a published copy left out to stay within the output budget (empty in the kernel)",
          "default": []
        },
        "schema_version": {
          "const": 1
        },
        "record": {
          "const": "target"
        },
        "torch_logs": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/TorchLog"
          },
          "description": "torch's log records about its compiles, kept off stderr (`--torch-logs` keeps them)",
          "default": []
        },
        "compiled_inside": {
          "type": "string",
          "description": "status compiled_inside: the target of the same cell whose graph this module ran in",
          "default": ""
        },
        "progress": {
          "anyOf": [
            {
              "$ref": "#/$defs/CompileProgress"
            },
            {
              "type": "null"
            }
          ],
          "description": "status compiling: where the running compile is (absent once it finished)",
          "default": null
        },
        "stance": {
          "type": "string",
          "description": "the `torch.compiler.set_stance` stance in force (`%%stance`, `%nbcompile stance`)",
          "default": "default"
        },
        "eager_runs": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/EagerRuns"
          },
          "description": "calls that ran eagerly",
          "default": []
        },
        "cudagraph_calls": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CudagraphCall"
          },
          "description": "calls under CUDA graphs (`--mode reduce-overhead` on a GPU) that warmed up, recorded, re-recorded or fell back, each with the first call that replayed after",
          "default": []
        },
        "cudagraph_shapes": {
          "anyOf": [
            {
              "$ref": "#/$defs/CudagraphShapes"
            },
            {
              "type": "null"
            }
          ],
          "description": "the input sizes its CUDA graphs were recorded for (None: none recorded)",
          "default": null
        },
        "cudagraph_hazards": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CudagraphHazard"
          },
          "description": "names found holding this target's CUDA-graph outputs after a later call took them (the latest, at most `cudagraphs.hazard.MAX_KEPT`)",
          "default": []
        },
        "graph_break_count": {
          "type": "integer",
          "description": "len(graph_breaks)"
        },
        "cell_names": {
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "description": "each notebook cell's code file the record names (a break's file, torch's text: an FX graph's `# File:` comments, guards, log messages), as written there -> the cell as the notebook names it (`cell [2]`); torch's text stays verbatim (published)",
          "default": {}
        },
        "recompile_count": {
          "type": "integer",
          "description": "len(recompiles)"
        },
        "kernel_count": {
          "type": "integer",
          "description": "generated kernels that run (kernels of kind kernel)"
        },
        "code_piece_count": {
          "type": "integer",
          "description": "every code piece: kernels, extern calls, wrappers",
          "default": 0
        },
        "truncated": {
          "type": "boolean",
          "description": "set when published inline and some text was capped",
          "default": false
        },
        "status_text": {
          "type": "string",
          "description": "the status in words, as the kernel shows it (published; `compiling` is ticked by the front end from compiling_since)",
          "default": ""
        },
        "progress_text": {
          "type": "string",
          "description": "status compiling: the current step, the frame and the steps so far in words, as the kernel shows them (published)",
          "default": ""
        }
      },
      "required": [
        "id",
        "name",
        "kind",
        "options",
        "status",
        "wrapper",
        "compiled_object",
        "cell",
        "notes",
        "error",
        "compiling_since",
        "compiles",
        "graph_count",
        "graph_breaks",
        "recompiles",
        "kernels",
        "output_code",
        "compile_time_s",
        "schema_version",
        "record",
        "graph_break_count",
        "recompile_count",
        "kernel_count"
      ],
      "additionalProperties": false
    },
    "TargetError": {
      "title": "TargetError",
      "type": "object",
      "description": "Why a target could not compile (e.g. a `fullgraph=True` break), tied to a line.",
      "properties": {
        "type": {
          "type": "string",
          "description": "the exception type"
        },
        "message": {
          "type": "string"
        },
        "filename": {
          "type": [
            "string",
            "null"
          ],
          "description": "the innermost frame, often a library line"
        },
        "lineno": {
          "type": [
            "integer",
            "null"
          ]
        },
        "line": {
          "type": "string"
        },
        "hint": {
          "type": "string",
          "description": "newline-separated hints from Dynamo"
        },
        "stack": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/SourceLine"
          },
          "description": "as `GraphBreak.stack`",
          "default": []
        }
      },
      "required": [
        "type",
        "message",
        "filename",
        "lineno",
        "line",
        "hint"
      ],
      "additionalProperties": false
    },
    "SourceLine": {
      "title": "SourceLine",
      "type": "object",
      "description": "One line of user source: where it lives and what it says.",
      "properties": {
        "filename": {
          "type": "string",
          "description": "the code filename, as in tracebacks (a cell's is `<ipython-input-...>`)"
        },
        "lineno": {
          "type": "integer",
          "description": "1-based; in a `%%compile` cell the magic line is line 1"
        },
        "line": {
          "type": "string",
          "description": "the source text"
        }
      },
      "required": [
        "filename",
        "lineno",
        "line"
      ],
      "additionalProperties": false
    },
    "CompileRecord": {
      "title": "CompileRecord",
      "type": "object",
      "description": "One Dynamo frame compile (`compile_id` like `\"0/1\"`): graphs, guards, code.",
      "properties": {
        "compile_id": {
          "type": "string",
          "description": "`\"0/1\"`: frame 0, its second compile"
        },
        "frame": {
          "type": "string",
          "description": "Code name; code after a graph break runs as `torch_dynamo_resume_in_<fn>_at_<line>`."
        },
        "filename": {
          "type": "string"
        },
        "firstlineno": {
          "type": "integer"
        },
        "status": {
          "enum": [
            "ok",
            "failed"
          ]
        },
        "error": {
          "type": "string",
          "description": "why it failed"
        },
        "recompile_reason": {
          "type": "string",
          "description": "the failed guard(s), in words"
        },
        "recompile_guard": {
          "type": "string",
          "description": "the failed guard(s) as Dynamo wrote them",
          "default": ""
        },
        "graphs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "readable FX graphs (`# File:` lines)"
        },
        "graph_op_count": {
          "type": "integer",
          "description": "ops in the graphs"
        },
        "guards": {
          "type": "string",
          "description": "Dynamo's guard tree as text"
        },
        "output_code": {
          "type": "string",
          "description": "generated module (empty when published: it is at target level)"
        },
        "output_code_path": {
          "type": "string",
          "description": "where Inductor wrote the generated module"
        },
        "kernels": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Kernel"
          },
          "description": "empty when published"
        },
        "post_grad_graphs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "Inductor's input graphs",
          "default": []
        },
        "graph_breaks": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/GraphBreak"
          }
        },
        "times": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "Seconds: `total_s`, `backend_compile_s`, `inductor_compile_s`, `code_gen_s`..."
        },
        "cache": {
          "type": "object",
          "additionalProperties": {
            "type": "integer"
          },
          "description": "Counts of `fx_graph_cache_hit`/`_miss`, `aotautograd_cache_hit`/`_miss`."
        },
        "started_at": {
          "type": "number",
          "description": "Unix time the compile started"
        },
        "recompile_limit": {
          "type": "integer",
          "description": "torch._dynamo.config.recompile_limit in force (0: unknown)",
          "default": 0
        },
        "phases": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "Exclusive seconds per compile phase (`Dynamo tracing`, `AOTAutograd`, `Inductor passes`, `Inductor lowering`, `code generation`, `C++/Triton compile`, `gc`), summing to at most `times.total_s`; phases torch did not report are absent.",
          "default": {}
        },
        "guard_latency_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "guard evaluation time torch measured, if any",
          "default": null
        },
        "restart_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "Seconds Dynamo traced this frame before a graph break made it start over (torch's `dynamo_time_before_restart_s`): tracing the break threw away; None: no restart.",
          "default": null
        },
        "chromium_events": {
          "type": "array",
          "items": {
            "type": "object",
            "additionalProperties": {}
          },
          "description": "torch's Chrome-trace events of this compile (`ph` B/E/i, `ts` in us, `name`, `cat`...), for `report(x).save_chrome_trace(path)`; kept in the kernel, left out of published records.",
          "default": []
        },
        "cudagraphs": {
          "anyOf": [
            {
              "$ref": "#/$defs/CudagraphOutcome"
            },
            {
              "type": "null"
            }
          ],
          "description": "What became of CUDA graphs for this compile's graphs (`--mode reduce-overhead`), from torch's own messages and skip count; None: CUDA graphs were not asked for, or torch neither said nor counted anything.",
          "default": null
        },
        "cell": {
          "type": [
            "integer",
            "null"
          ],
          "description": "Execution count of the cell run that made the call (None: unknown, e.g. no cell ran).",
          "default": null
        },
        "changed_by": {
          "type": "array",
          "items": {
            "type": "integer"
          },
          "description": "Execution counts of the cell runs since the frame's previous compile that changed what the failed guard reads (a global, a module's `training`); empty: none known.",
          "default": []
        },
        "changes": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "those, in words: `cell [7] set X = 1`",
          "default": []
        },
        "runs_as": {
          "anyOf": [
            {
              "$ref": "#/$defs/RunsAs"
            },
            {
              "type": "null"
            }
          ],
          "description": "What torch runs in place of the frame (its transformed code as Python and the walk through graphs, Python and resume functions); None: not known (not heard; a trace compile holds what its log does)",
          "default": null
        },
        "failed_versions": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/FailedVersion"
          },
          "description": "For a recompile: each compiled version torch tried, newest first, with its own failed guard (torch's record of the call); empty: not a recompile, or torch named none.",
          "default": []
        },
        "label": {
          "type": "string",
          "description": "The compile as views head it, with the code named as the user wrote it: `compile 0/1 (f)`; the frame torch compiles for a module target (its `wrap_inline` wrapper, `inner`) named by the module (`compile 0/0 (model)`); \"\": not set.",
          "default": ""
        },
        "code": {
          "type": "string",
          "description": "The code the compile ran, as the user wrote it: `frame`, or for a module target's wrapper frame the module's name (`model`, where torch says `inner`); \"\": not set.",
          "default": ""
        }
      },
      "required": [
        "compile_id",
        "frame",
        "filename",
        "firstlineno",
        "status",
        "error",
        "recompile_reason",
        "graphs",
        "graph_op_count",
        "guards",
        "output_code",
        "output_code_path",
        "kernels",
        "graph_breaks",
        "times",
        "cache",
        "started_at"
      ],
      "additionalProperties": false
    },
    "Kernel": {
      "title": "Kernel",
      "type": "object",
      "description": "One piece of generated code: a C++/Triton kernel, an extern call or the wrapper.",
      "properties": {
        "name": {
          "type": "string"
        },
        "language": {
          "enum": [
            "cpp",
            "triton",
            "python"
          ]
        },
        "source": {
          "type": "string",
          "description": "the code"
        },
        "kind": {
          "enum": [
            "kernel",
            "extern",
            "wrapper"
          ]
        },
        "size": {
          "type": "integer",
          "description": "characters of source"
        },
        "compile_id": {
          "type": "string"
        },
        "ops": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "ATen ops it computes (`aten.mul`)"
        },
        "lines": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/SourceLine"
          },
          "description": "The user lines it came from: exact when Inductor's provenance tracking named them (nbcompile turns it on while loaded), else matched by op names and order."
        },
        "stage": {
          "type": "string",
          "description": "inference | forward | backward (AOT graph the code belongs to)",
          "default": ""
        },
        "handle": {
          "type": "string",
          "description": "Inductor's provenance handle (\"cpp_fused_add_1:4\"), when tracked",
          "default": ""
        },
        "nodes": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "FX node names it computes",
          "default": []
        },
        "compile_time_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "Seconds Triton took to compile it, as torch measured (`compilation_metrics`' `triton_kernel_compile_times_us`; GPU compiles); None: torch did not say.",
          "default": null
        },
        "compile_label": {
          "type": "string",
          "description": "The compile it came from, in the words every view names it by (`compile 0/1`), so two kernels of one name from two compiles read apart; \"\": not known.",
          "default": ""
        }
      },
      "required": [
        "name",
        "language",
        "source",
        "kind",
        "size",
        "compile_id",
        "ops",
        "lines"
      ],
      "additionalProperties": false
    },
    "GraphBreak": {
      "title": "GraphBreak",
      "type": "object",
      "description": "A place where Dynamo stopped tracing and fell back to Python.",
      "properties": {
        "reason": {
          "type": "string",
          "description": "type and explanation in words"
        },
        "filename": {
          "type": [
            "string",
            "null"
          ],
          "description": "where it broke (the innermost frame)"
        },
        "lineno": {
          "type": [
            "integer",
            "null"
          ]
        },
        "line": {
          "type": "string",
          "description": "the source text of that line"
        },
        "hint": {
          "type": "string",
          "description": "newline-separated hints from Dynamo"
        },
        "explanation": {
          "type": "string",
          "description": "Dynamo's explanation"
        },
        "gb_type": {
          "type": "string",
          "description": "Dynamo's graph-break type"
        },
        "compile_id": {
          "type": "string",
          "description": "the compile that broke (`\"0/1\"`)"
        },
        "stack": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/SourceLine"
          },
          "description": "Dynamo's user stack, outermost first: e.g. the user's cell line, then the library lines it called into, down to the line that broke (`filename`/`lineno`).",
          "default": []
        },
        "gb_id": {
          "type": "string",
          "description": "Dynamo's graph-break id, e.g. \"GB0170\"",
          "default": ""
        },
        "doc_url": {
          "type": "string",
          "description": "the graph break's documentation page",
          "default": ""
        },
        "stack_dropped": {
          "type": "integer",
          "description": "frames of the process's own machinery above the user's first frame (in a kernel: runpy, ipykernel, tornado, asyncio, IPython) that Dynamo printed and `stack` leaves out",
          "default": 0
        },
        "hits": {
          "type": "integer",
          "description": "compiles of the target that hit this break (published on a target's graph_breaks, counted by insight/break_ranking.py)",
          "default": 0
        },
        "runs_as": {
          "type": "string",
          "description": "what torch runs around this break, in one line: the graph before it, the Python at its line, where it resumes (published on a target's graph_breaks from the compiles' runs_as; absent when not known)",
          "default": ""
        }
      },
      "required": [
        "reason",
        "filename",
        "lineno",
        "line",
        "hint",
        "explanation",
        "gb_type",
        "compile_id"
      ],
      "additionalProperties": false
    },
    "CudagraphOutcome": {
      "title": "CudagraphOutcome",
      "type": "object",
      "description": "What torch did about CUDA graphs for one compile (`--mode reduce-overhead`), read from its own record: its `cudagraphs` log messages and `counters[\"inductor\"][\"cudagraph_skips\"]`.",
      "properties": {
        "status": {
          "enum": [
            "recorded",
            "skipped",
            "not_used"
          ]
        },
        "reason": {
          "type": "string",
          "description": "torch's reason in its words (`mutated inputs (1 instances)`, `cpu device`); empty when recorded",
          "default": ""
        },
        "line": {
          "anyOf": [
            {
              "$ref": "#/$defs/SourceLine"
            },
            {
              "type": "null"
            }
          ],
          "description": "the user's line torch named (its `Found from:` stack, innermost user frame)",
          "default": null
        },
        "cell": {
          "type": [
            "integer",
            "null"
          ],
          "description": "execution count of the cell that line is in, when known",
          "default": null
        },
        "messages": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "torch's messages, verbatim",
          "default": []
        },
        "partitions": {
          "anyOf": [
            {
              "$ref": "#/$defs/CudagraphPartitions"
            },
            {
              "type": "null"
            }
          ],
          "description": "Inductor's graph partitions (torch 2.9+ on a GPU, when its scheduler ran: not on an FX-graph cache hit); None: torch said nothing of partitions",
          "default": null
        },
        "partitions_unknown": {
          "type": "string",
          "description": "why the partitions are not known, when torch could not say (`served from the FX-graph cache`, `not reported by torch 2.9`); empty otherwise",
          "default": ""
        },
        "text": {
          "type": "string",
          "description": "the outcome in words, as the Compiles column shows it (made in Python: the inspector only renders it)",
          "default": ""
        }
      },
      "required": [
        "status"
      ],
      "additionalProperties": false
    },
    "CudagraphPartitions": {
      "title": "CudagraphPartitions",
      "type": "object",
      "description": "How Inductor split a compile's graphs around what CUDA graphs cannot capture (graph partitioning): torch's count of partitions, those it records as CUDA graphs, and the nodes it runs outside them. Summed over the compile's Inductor graphs.",
      "properties": {
        "partitions": {
          "type": "integer",
          "description": "\"Created N graph partitions\""
        },
        "cudagraphable": {
          "type": "integer",
          "description": "those CUDA-graph trees record"
        },
        "outside": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CudagraphPartitionNode"
          }
        }
      },
      "required": [
        "partitions",
        "cudagraphable",
        "outside"
      ],
      "additionalProperties": false
    },
    "CudagraphPartitionNode": {
      "title": "CudagraphPartitionNode",
      "type": "object",
      "description": "A node Inductor kept out of CUDA graphs by graph partitioning (`torch._inductor.config.graph_partition`), in torch's words: its scheduler's `cudagraphs` DEBUG line for a node of a non-cudagraphable partition.",
      "properties": {
        "node": {
          "type": "string",
          "description": "Inductor's buffer name (`buf1`)"
        },
        "reason": {
          "type": "string",
          "description": "torch's reason (`cpu ops`, `DeviceCopy ops`)"
        },
        "fx": {
          "type": "string",
          "description": "the FX node as torch printed it (`mul(arg1_1, 2)`)",
          "default": ""
        },
        "line": {
          "anyOf": [
            {
              "$ref": "#/$defs/SourceLine"
            },
            {
              "type": "null"
            }
          ],
          "description": "the user's line in the node's stack trace",
          "default": null
        },
        "cell": {
          "type": [
            "integer",
            "null"
          ],
          "description": "execution count of the cell that line is in, when known",
          "default": null
        }
      },
      "required": [
        "node",
        "reason"
      ],
      "additionalProperties": false
    },
    "RunsAs": {
      "title": "RunsAs",
      "type": "object",
      "description": "What torch runs in place of a compiled frame: Dynamo's transformed bytecode, decompiled to Python (depyf), and the walk derived from it.",
      "properties": {
        "source": {
          "type": "string",
          "description": "the transformed code as Python (\"\" when it could not be decompiled)",
          "default": ""
        },
        "steps": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/RunStep"
          },
          "description": "graphs, Python, resume, in order",
          "default": []
        },
        "walk": {
          "type": "string",
          "description": "the steps in one line: `graph 1 (2 ops: sin, mul) -> print(...) ...`",
          "default": ""
        },
        "dis": {
          "type": "string",
          "description": "`dis` of the transformed code, when `source` is empty",
          "default": ""
        },
        "problem": {
          "type": "string",
          "description": "why `source` is empty (depyf missing or failed), in words",
          "default": ""
        }
      },
      "required": [],
      "additionalProperties": false
    },
    "RunStep": {
      "title": "RunStep",
      "type": "object",
      "description": "One step of what torch runs in place of a frame, in order.",
      "properties": {
        "kind": {
          "enum": [
            "graph",
            "python",
            "resume"
          ]
        },
        "text": {
          "type": "string",
          "description": "the step in words: `graph 1 (3 ops: sin, mul)`, `print('debug') in Python`"
        },
        "graph": {
          "type": [
            "integer",
            "null"
          ],
          "description": "graph: which of this compile's `graphs` (0-based) Dynamo's code calls here",
          "default": null
        },
        "lineno": {
          "type": [
            "integer",
            "null"
          ],
          "description": "python: the user line run eagerly (the graph break's line)",
          "default": null
        },
        "frame": {
          "type": "string",
          "description": "resume: the resume function's frame (`torch_dynamo_resume_in_f_at_8`) whose own compiles (`CompileRecord.frame`) carry its graphs, guards and recompiles; \"\" unknown",
          "default": ""
        },
        "inner": {
          "anyOf": [
            {
              "$ref": "#/$defs/SourceLine"
            },
            {
              "type": "null"
            }
          ],
          "description": "python: where the graph break is when it is inside a function this line calls (that function then runs as a frame of its own); None: the break is on `lineno` itself",
          "default": null
        },
        "alternative": {
          "type": "boolean",
          "description": "resume: another branch's resume function (a data-dependent branch resumes in one of two, whichever the condition picks)",
          "default": false
        }
      },
      "required": [
        "kind",
        "text"
      ],
      "additionalProperties": false
    },
    "FailedVersion": {
      "title": "FailedVersion",
      "type": "object",
      "description": "One compiled version whose guards a call failed before torch recompiled.",
      "properties": {
        "compile_id": {
          "type": "string",
          "description": "the version's compile (`\"0/2\"`), as torch names it (\"\": not named)"
        },
        "guard": {
          "type": "string",
          "description": "its failed guard(s) as torch wrote them (`; `-joined)"
        },
        "cell": {
          "type": [
            "integer",
            "null"
          ],
          "description": "execution count of the cell run whose call compiled it"
        }
      },
      "required": [
        "compile_id",
        "guard",
        "cell"
      ],
      "additionalProperties": false
    },
    "Recompile": {
      "title": "Recompile",
      "type": "object",
      "description": "A compile triggered because an earlier compile's guards failed.",
      "properties": {
        "reason": {
          "type": "string",
          "description": "the failed guard in words, e.g. `tensor 'x' dtype mismatch. ...`"
        },
        "compile_id": {
          "type": "string",
          "description": "`\"0/1\"`: frame 0, its second compile"
        },
        "guard": {
          "type": "string",
          "description": "the failed guard as Dynamo wrote it"
        },
        "frame": {
          "type": "string",
          "description": "the code recompiled (a resumed part: `torch_dynamo_resume_in_<fn>_at_<n>`)",
          "default": ""
        },
        "cell": {
          "type": [
            "integer",
            "null"
          ],
          "description": "execution count of the cell run whose call recompiled",
          "default": null
        },
        "changed_by": {
          "type": "array",
          "items": {
            "type": "integer"
          },
          "description": "cells that changed what it reads",
          "default": []
        },
        "changes": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "in words: `cell [7] set SCALE = 0.5`",
          "default": []
        },
        "failed_versions": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/FailedVersion"
          },
          "description": "Each compiled version torch tried for this call, newest first, with its own failed guard; empty: torch named none (a record from an older nbcompile, or a trace without them).",
          "default": []
        },
        "text": {
          "type": "string",
          "description": "The recompile in words, as every view shows it: the reason, who changed what the guard reads, the call that paid and the versions torch tried; \"\": a record from an older nbcompile (a view shows `reason`).",
          "default": ""
        }
      },
      "required": [
        "reason",
        "compile_id",
        "guard"
      ],
      "additionalProperties": false
    },
    "LineAnnotation": {
      "title": "LineAnnotation",
      "type": "object",
      "description": "What became of one source line (`%%compile --annotate`, `report(obj).annotate()`).",
      "properties": {
        "filename": {
          "type": "string"
        },
        "lineno": {
          "type": "integer"
        },
        "line": {
          "type": "string",
          "description": "the source text"
        },
        "category": {
          "type": "string",
          "description": "kernel | extern | graph_break | error | traced | python | pending | ..."
        },
        "kernels": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "labels of generated kernels"
        },
        "externs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "labels of extern calls"
        },
        "kernel_refs": {
          "type": "array",
          "items": {
            "type": "integer"
          },
          "description": "indexes into TargetRecord.kernels"
        },
        "ops": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "ATen ops of this line"
        },
        "reason": {
          "type": "string",
          "description": "for a graph break or an error: why"
        }
      },
      "required": [
        "filename",
        "lineno",
        "line",
        "category",
        "kernels",
        "externs",
        "kernel_refs",
        "ops",
        "reason"
      ],
      "additionalProperties": false
    },
    "CodeDiff": {
      "title": "CodeDiff",
      "type": "object",
      "description": "What changed in one kernel's generated code since the previous compile.",
      "properties": {
        "kernel": {
          "type": "string",
          "description": "the kernel's name in this compile"
        },
        "compile_id": {
          "type": "string"
        },
        "previous_compile_id": {
          "type": "string"
        },
        "previous_kernel": {
          "type": "string",
          "description": "its name in the previous compile"
        },
        "stage": {
          "type": "string",
          "description": "inference | forward | backward"
        },
        "language": {
          "type": "string"
        },
        "change": {
          "type": "string",
          "description": "changed | added | removed"
        },
        "cause": {
          "type": "string",
          "description": "the recompile reason, or \"cell re-run\""
        },
        "diff": {
          "type": "string",
          "description": "unified diff text"
        },
        "added": {
          "type": "integer",
          "description": "lines added"
        },
        "removed": {
          "type": "integer",
          "description": "lines removed"
        }
      },
      "required": [
        "kernel",
        "compile_id",
        "previous_compile_id",
        "previous_kernel",
        "stage",
        "language",
        "change",
        "cause",
        "diff",
        "added",
        "removed"
      ],
      "additionalProperties": false
    },
    "Advice": {
      "title": "Advice",
      "type": "object",
      "description": "What the user should change, in words, from a pattern seen across compiles.",
      "properties": {
        "kind": {
          "type": "string",
          "description": "recompile-storm | scalar-specialization | recompile-limit | rank-change"
        },
        "message": {
          "type": "string",
          "description": "in words"
        },
        "fix": {
          "type": "string",
          "description": "the setting or code to use"
        }
      },
      "required": [
        "kind",
        "message",
        "fix"
      ],
      "additionalProperties": false
    },
    "Omission": {
      "title": "Omission",
      "type": "object",
      "description": "A part of a record left out of a published output to keep it within its byte budget; the kernel keeps it whole (`how` gets it there).",
      "properties": {
        "field": {
          "type": "string",
          "description": "what was cut: `compiles`, `kernels`, `compiles[].graphs`..."
        },
        "count": {
          "type": "integer",
          "description": "how many items (or characters, see `unit`) were left out"
        },
        "how": {
          "type": "string",
          "description": "the kernel expression that has them all: `nbcompile.report(f).compiles`"
        },
        "unit": {
          "type": "string",
          "description": "items | characters"
        }
      },
      "required": [
        "field",
        "count",
        "how",
        "unit"
      ],
      "additionalProperties": false
    },
    "TorchLog": {
      "title": "TorchLog",
      "type": "object",
      "description": "A record torch logged during one of the target's compiles (kept out of stderr).",
      "properties": {
        "level": {
          "type": "string",
          "description": "`WARNING`, `INFO`..."
        },
        "logger": {
          "type": "string",
          "description": "e.g. `torch._dynamo.variables.tensor`"
        },
        "compile_id": {
          "type": "string",
          "description": "the compile it was logged in (`\"0/1\"`)"
        },
        "message": {
          "type": "string",
          "description": "torch's text, as it would have printed (multi-line)"
        }
      },
      "required": [
        "level",
        "logger",
        "compile_id",
        "message"
      ],
      "additionalProperties": false
    },
    "CompileProgress": {
      "title": "CompileProgress",
      "type": "object",
      "description": "Where a running frame compile is, from torch's live trace events (present only while a target compiles; the finished compile's phases are `CompileRecord.phases`).",
      "properties": {
        "compile_id": {
          "type": "string",
          "description": "`\"0/1\"`: the frame compile running"
        },
        "frame": {
          "type": "string",
          "description": "the code being compiled (function name)"
        },
        "filename": {
          "type": "string",
          "description": "its file (a cell's is `<ipython-input-...>`)"
        },
        "lineno": {
          "type": "integer",
          "description": "its first line"
        },
        "phase": {
          "type": "string",
          "description": "The current step: `tracing bytecode`, `building the graph`, `AOTAutograd`, `Inductor graph passes`, `Inductor lowering`, `Inductor code generation`, `compiling kernels`, `loading the compiled code`, `loading from the cache`, `building guards`"
        },
        "elapsed_s": {
          "type": "number",
          "description": "seconds since the frame compile started"
        },
        "phase_seconds": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "Seconds spent per step so far, in the order they ran (the current one included)."
        },
        "kernels_total": {
          "type": [
            "integer",
            "null"
          ],
          "description": "kernels the generated code compiles, once known"
        },
        "kernels_done": {
          "type": [
            "integer",
            "null"
          ],
          "description": "of those, compiled so far (when torch reports it)"
        },
        "kernel_language": {
          "type": "string",
          "description": "`C++` or `Triton`"
        }
      },
      "required": [
        "compile_id",
        "frame",
        "filename",
        "lineno",
        "phase",
        "elapsed_s",
        "phase_seconds",
        "kernels_total",
        "kernels_done",
        "kernel_language"
      ],
      "additionalProperties": false
    },
    "EagerRuns": {
      "title": "EagerRuns",
      "type": "object",
      "description": "Calls of a target that ran eagerly under a `torch.compiler.set_stance` stance (`force_eager`; `eager_on_recompile` when no compiled code fitted the call), or that `fail_on_recompile` refused (raised: they would have compiled).",
      "properties": {
        "stance": {
          "type": "string",
          "description": "force_eager | eager_on_recompile | fail_on_recompile"
        },
        "count": {
          "type": "integer",
          "description": "calls"
        },
        "cells": {
          "type": "array",
          "items": {
            "type": "integer"
          },
          "description": "execution counts of their cells"
        }
      },
      "required": [
        "stance",
        "count",
        "cells"
      ],
      "additionalProperties": false
    },
    "CudagraphCall": {
      "title": "CudagraphCall",
      "type": "object",
      "description": "One call of a target under CUDA-graph trees, as torch's tree manager ran its graphs: warmed up (run eagerly once, in the graph pool), recorded, replayed, or sent to eager.",
      "properties": {
        "call": {
          "type": "integer",
          "description": "the call's number among all calls of the target's compiled function, from its first (0: not known, a function whose calls nbcompile cannot count; see `core/notebook/targets/running.py`)"
        },
        "cell": {
          "type": [
            "integer",
            "null"
          ],
          "description": "execution count of the cell that made the call",
          "default": null
        },
        "warmups": {
          "type": "integer",
          "description": "graph runs that warmed up (the tree's `run_eager`, first run)",
          "default": 0
        },
        "recordings": {
          "type": "integer",
          "description": "graphs recorded (the tree's `record_function`), re-records too",
          "default": 0
        },
        "replays": {
          "type": "integer",
          "description": "recorded graphs replayed (the tree's `execute_node`)",
          "default": 0
        },
        "eager": {
          "type": "integer",
          "description": "graph runs torch ran eagerly after warm-up (not as CUDA graphs)",
          "default": 0
        },
        "rerecords": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CudagraphRerecord"
          },
          "description": "the recordings that recorded a graph again (a recorded one's check failed), why",
          "default": []
        },
        "new_shapes": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CudagraphShape"
          },
          "description": "sizes first seen here",
          "default": []
        },
        "fell_back": {
          "type": "string",
          "description": "torch's message when it gave up on a graph and runs it eagerly from now on (past `cudagraph_unexpected_rerecord_limit`); empty: none",
          "default": ""
        },
        "pool_before": {
          "type": [
            "integer",
            "null"
          ],
          "description": "bytes reserved by the CUDA-graph trees' private memory pool before and after the call (None: not read); `pool_source` says how they were read",
          "default": null
        },
        "pool_after": {
          "type": [
            "integer",
            "null"
          ],
          "default": null
        },
        "pool_source": {
          "type": "string",
          "default": ""
        },
        "what": {
          "type": "string",
          "description": "what happened, in the words the summary's line and the inspector show",
          "default": ""
        },
        "backward": {
          "type": "boolean",
          "description": "the graph runs of a backward pass after call `call` (`loss.backward()`: outside the target's calls; torch's lines say so, `replays` not counted there)",
          "default": false
        }
      },
      "required": [
        "call"
      ],
      "additionalProperties": false
    },
    "CudagraphRerecord": {
      "title": "CudagraphRerecord",
      "type": "object",
      "description": "A CUDA graph torch recorded again because an input changed (CUDA-graph trees' `check_invariants`), in torch's words.",
      "properties": {
        "compile_id": {
          "type": "string",
          "description": "the compile whose graph was recorded again (`\"0/1\"`)"
        },
        "reason": {
          "type": "string",
          "description": "torch's reason (`CheckInvariantStatus`): `static input data pointer changed`"
        },
        "inputs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "the graph inputs whose pointer changed",
          "default": []
        },
        "line": {
          "type": "string",
          "description": "the user's source line torch gave for the first of those inputs, when it gave one",
          "default": ""
        }
      },
      "required": [
        "compile_id",
        "reason"
      ],
      "additionalProperties": false
    },
    "CudagraphShape": {
      "title": "CudagraphShape",
      "type": "object",
      "description": "An input size a compile's CUDA graph was first recorded for (torch's symint key).",
      "properties": {
        "compile_id": {
          "type": "string",
          "description": "the compile (`\"0/1\"`)"
        },
        "key": {
          "type": "string",
          "description": "torch's key of dynamic sizes (`(48,)`); `static` for a graph without any"
        },
        "cell": {
          "type": [
            "integer",
            "null"
          ],
          "description": "execution count of the cell whose call recorded it",
          "default": null
        }
      },
      "required": [
        "compile_id",
        "key"
      ],
      "additionalProperties": false
    },
    "CudagraphShapes": {
      "title": "CudagraphShapes",
      "type": "object",
      "description": "A target's CUDA graphs per input size: one recording per distinct size.",
      "properties": {
        "shapes": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CudagraphShape"
          },
          "description": "each size, in order seen"
        },
        "warn_limit": {
          "type": [
            "integer",
            "null"
          ],
          "description": "torch's warning limit on distinct sizes per graph and the config that sets it (`torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit`); None: off",
          "default": null
        },
        "warn_limit_config": {
          "type": "string",
          "default": ""
        },
        "remedy": {
          "type": "string",
          "description": "what fits when sizes keep coming (empty: nothing to do yet)",
          "default": ""
        }
      },
      "required": [
        "shapes"
      ],
      "additionalProperties": false
    },
    "CudagraphHazard": {
      "title": "CudagraphHazard",
      "type": "object",
      "description": "User names found after a cell holding CUDA-graph outputs that are no longer theirs: `overwritten` (torch marked the output when a later call started a new generation of the trees: reading it raises torch's error) or `shared` (names holding a tensor a replay hands back again and writes into, with no error: several names made one tensor, or one name whose tensor a later replay wrote). Worded once, in Python: the cell's output, the summary and the inspector show `text`.",
      "properties": {
        "kind": {
          "enum": [
            "overwritten",
            "shared"
          ]
        },
        "cell": {
          "type": [
            "integer",
            "null"
          ],
          "description": "execution count of the cell after which it was found"
        },
        "names": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CudagraphHazardName"
          },
          "default": []
        },
        "gradient": {
          "type": "boolean",
          "description": "overwritten gradients (`.grad`): torch's advice differs",
          "default": false
        },
        "text": {
          "type": "string",
          "description": "what happened and the fix, in words",
          "default": ""
        }
      },
      "required": [
        "kind",
        "cell"
      ],
      "additionalProperties": false
    },
    "CudagraphHazardName": {
      "title": "CudagraphHazardName",
      "type": "object",
      "description": "A user's name in a CUDA-graph hazard: `y1`, `preds[0]`.",
      "properties": {
        "name": {
          "type": "string"
        },
        "bound_in": {
          "type": [
            "integer",
            "null"
          ],
          "description": "execution count of the cell that bound it (None: not known)",
          "default": null
        },
        "by": {
          "type": "string",
          "description": "overwritten: the function whose call overwrote it (\"\": not known which)",
          "default": ""
        }
      },
      "required": [
        "name"
      ],
      "additionalProperties": false
    },
    "Comparison": {
      "title": "Comparison",
      "type": "object",
      "description": "The result of `compare()`: one row per mode, eager first.",
      "properties": {
        "name": {
          "type": "string",
          "description": "the function's `__name__` (or the module's class name)"
        },
        "rows": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/TimingRow"
          },
          "description": "eager first, then one per mode"
        },
        "device": {
          "type": "string",
          "description": "device of the first tensor argument (`cpu`, `cuda:0`)"
        },
        "num_threads": {
          "type": "integer",
          "description": "`torch.get_num_threads()`, held for every measurement"
        },
        "budget_s": {
          "type": "number",
          "description": "the steady-state measurement budget (compiles come on top)"
        },
        "elapsed_s": {
          "type": "number",
          "description": "wall time of the whole comparison, compiles included"
        },
        "phases_s": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "Where `elapsed_s` went: `first calls` (compiles), `memory`, `timed calls` (what `budget_s` bounds), `explaining profile`, `other`",
          "default": {}
        },
        "memory_measured": {
          "type": "boolean",
          "description": "each row's memory was measured (`memory=True`)",
          "default": false
        },
        "min_effect": {
          "type": "number",
          "description": "smallest relative difference called significant"
        },
        "inputs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "e.g. `Tensor[256, 1024] float32 cpu`"
        },
        "environment": {
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "description": "`torch`, `python`, `machine`, `cpu_count`, `processor` (`gpu`)"
        },
        "created_at": {
          "type": "string",
          "description": "ISO 8601, UTC"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "comparison-wide notes"
        },
        "confidence": {
          "type": "number",
          "description": "level of the median speedup's confidence interval",
          "default": 0.95
        },
        "min_verdict_repeats": {
          "type": "integer",
          "description": "fewest paired repeats for a verdict",
          "default": 10
        },
        "max_ci_ratio": {
          "type": "number",
          "description": "widest interval (upper / lower) for a verdict",
          "default": 1.5
        },
        "mutated_inputs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "Inputs the call changes in place (`args[0]`); timed on copies, the user's unchanged",
          "default": []
        },
        "random_ops": {
          "type": "boolean",
          "description": "the call draws random numbers (same RNG start for every mode)",
          "default": false
        },
        "captured_output_lines": {
          "type": "integer",
          "description": "lines the function printed (captured, not shown)",
          "default": 0
        },
        "interrupted": {
          "type": "boolean",
          "description": "Stopped by Ctrl-C: the rows hold what was measured until then (see `notes`)",
          "default": false
        },
        "schema_version": {
          "const": 1
        },
        "record": {
          "const": "timing"
        },
        "best": {
          "type": [
            "string",
            "null"
          ],
          "description": "fastest mode significantly faster than eager and numerically right"
        }
      },
      "required": [
        "name",
        "rows",
        "device",
        "num_threads",
        "budget_s",
        "elapsed_s",
        "min_effect",
        "inputs",
        "environment",
        "created_at",
        "notes",
        "schema_version",
        "record",
        "best"
      ],
      "additionalProperties": false
    },
    "TimingRow": {
      "title": "TimingRow",
      "type": "object",
      "description": "The measurements of one mode (or backend); eager is the baseline row.",
      "properties": {
        "mode": {
          "type": "string",
          "description": "`eager`, an Inductor mode, a Dynamo backend name, or `backend:<name>`"
        },
        "kind": {
          "type": "string",
          "description": "eager | mode | backend"
        },
        "backend": {
          "type": "string",
          "description": "`inductor` for modes, the backend's name, `\"\"` for eager"
        },
        "status": {
          "type": "string",
          "description": "ok | failed"
        },
        "error": {
          "type": "string",
          "description": "`Type: first line` when failed"
        },
        "first_call_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "the first call (compile + one run), timed apart"
        },
        "compile_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "`first_call_s` minus the steady-state median"
        },
        "median_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "per-call run time over the repeats (warm-up excluded)"
        },
        "q1_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "first quartile of the per-call run time"
        },
        "q3_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "third quartile of the per-call run time"
        },
        "iqr_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "interquartile range of the per-call run time"
        },
        "repeats": {
          "type": "integer",
          "description": "interleaved repeats"
        },
        "calls_per_repeat": {
          "type": "integer",
          "description": "calls per timed block"
        },
        "speedup": {
          "type": [
            "number",
            "null"
          ],
          "description": "median of the per-repeat ratios eager/mode"
        },
        "speedup_q1": {
          "type": [
            "number",
            "null"
          ],
          "description": "first quartile of those ratios"
        },
        "speedup_q3": {
          "type": [
            "number",
            "null"
          ],
          "description": "third quartile of those ratios"
        },
        "speedup_ci_low": {
          "type": [
            "number",
            "null"
          ],
          "description": "The `confidence` interval of the median paired speedup (order statistics)",
          "default": null
        },
        "speedup_ci_high": {
          "type": [
            "number",
            "null"
          ],
          "description": "upper bound of that interval",
          "default": null
        },
        "significant": {
          "type": "boolean",
          "description": "At least `min_verdict_repeats` repeats, the interval excluding 1.0 and the effect >= `min_effect` (however wide the interval; see `core/perf/verdict.py`)"
        },
        "spreads_overlap": {
          "type": [
            "boolean",
            "null"
          ],
          "description": "whether the run-time IQRs of mode and eager overlap"
        },
        "verdict": {
          "type": "string",
          "description": "baseline | faster | slower | no significant difference | inconclusive on this machine now | failed"
        },
        "max_abs_diff": {
          "type": [
            "number",
            "null"
          ],
          "description": "Max absolute difference of the outputs (and inputs and state changed in place) to eager's (null: structure differs, NaN mismatch, random numbers drawn differently, or nothing comparable, e.g. a generator)"
        },
        "numerics_ok": {
          "type": [
            "boolean",
            "null"
          ],
          "description": "within `tolerance` of eager's output, changed inputs and state (null: not comparable)"
        },
        "tolerance": {
          "type": "string",
          "description": "e.g. `torch.float32: rtol=0.001, atol=0.0001`, or `exact`"
        },
        "peak_memory_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "Peak tensor bytes in use during one call, above those in use before it (CPU: torch.profiler's allocation events; CUDA: `max_memory_allocated`); null: not measured"
        },
        "memory_note": {
          "type": "string",
          "description": "how memory was measured, or why it was not"
        },
        "allocated_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "bytes allocated during one call",
          "default": null
        },
        "peak_memory_ratio": {
          "type": [
            "number",
            "null"
          ],
          "description": "`peak_memory_bytes` over eager's",
          "default": null
        },
        "memory_verdict": {
          "type": "string",
          "description": "e.g. `0.25x eager's peak`; `baseline` for eager",
          "default": ""
        },
        "saved_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "Activations one call's forward saved for backward (storages the call created; parameters and inputs it saved are held anyway); null: nothing saved",
          "default": null
        },
        "held_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "CUDA: bytes still allocated after the mode's compile and warm-up, beyond those before it (for reduce-overhead: its CUDA graph memory pool's growth, a floor when the shared pool had free room); null off CUDA, or when a shared CUDA-graph pool with free room did not grow (not known: a note says)",
          "default": null
        },
        "cache": {
          "type": "object",
          "additionalProperties": {
            "type": "integer"
          },
          "description": "this row's compile cache hits/misses"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "e.g. `numerics differ from eager ...`"
        },
        "times_s": {
          "type": "array",
          "items": {
            "type": "number"
          },
          "description": "per-call time of each repeat's block"
        },
        "explanations": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Explanation"
          },
          "description": "Why this mode is not faster than eager, from a measured profile (`core/perf/explain.py`)",
          "default": []
        },
        "memory_explanations": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Explanation"
          },
          "description": "Why this mode needs more memory than eager, each naming its measured numbers",
          "default": []
        }
      },
      "required": [
        "mode",
        "kind",
        "backend",
        "status",
        "error",
        "first_call_s",
        "compile_s",
        "median_s",
        "q1_s",
        "q3_s",
        "iqr_s",
        "repeats",
        "calls_per_repeat",
        "speedup",
        "speedup_q1",
        "speedup_q3",
        "significant",
        "spreads_overlap",
        "verdict",
        "max_abs_diff",
        "numerics_ok",
        "tolerance",
        "peak_memory_bytes",
        "memory_note",
        "cache",
        "notes",
        "times_s"
      ],
      "additionalProperties": false
    },
    "Explanation": {
      "title": "Explanation",
      "type": "object",
      "description": "Why a compiled mode is not faster than eager, or needs more memory, from measurements.",
      "properties": {
        "kind": {
          "type": "string",
          "description": "overhead | extern | graph-breaks | recompiles | kernels | cudagraph-pool | held-between-calls | saved-for-backward | live-across-breaks | functionalized-mutation | buffers"
        },
        "message": {
          "type": "string",
          "description": "in words, naming the numbers below"
        },
        "evidence": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "the measured numbers"
        },
        "lines": {
          "type": "array",
          "items": {
            "type": "integer"
          },
          "description": "source lines it points at"
        }
      },
      "required": [
        "kind",
        "message",
        "evidence",
        "lines"
      ],
      "additionalProperties": false
    },
    "Profile": {
      "title": "Profile",
      "type": "object",
      "description": "The result of `profile()`: kernels, source lines and the per-call time budget.",
      "properties": {
        "name": {
          "type": "string",
          "description": "the profiled function or module"
        },
        "repeat": {
          "type": "integer",
          "description": "profiled calls"
        },
        "kernels": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/KernelTime"
          },
          "description": "slowest first"
        },
        "lines": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/LineTime"
          },
          "description": "every line of the target's source"
        },
        "filename": {
          "type": "string",
          "description": "the source file of `lines`"
        },
        "wall_s": {
          "type": "number",
          "description": "measured wall time per compiled call"
        },
        "kernel_s": {
          "type": "number",
          "description": "sum of `kernels[].total_s` / `repeat`"
        },
        "outside_graphs_s": {
          "type": "number",
          "description": "per call: Python and eager ops between graphs"
        },
        "overhead_s": {
          "type": "number",
          "description": "per call: guards, torch.compile/AOT wrappers, launches, allocs"
        },
        "unaccounted_s": {
          "type": "number",
          "description": "per call: wall time around the profiled call window"
        },
        "untied_s": {
          "type": "number",
          "description": "kernel time per call not tied to any line of the target"
        },
        "eager_wall_s": {
          "type": "number",
          "description": "wall time per eager call"
        },
        "eager_untied_s": {
          "type": "number",
          "description": "eager time per call outside the target's own lines"
        },
        "accounted": {
          "type": "boolean",
          "description": "kernels + outside graphs + overhead within 10 % of the wall"
        },
        "compiles": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "compile ids of the profiled copy"
        },
        "recompiles_during_profile": {
          "type": "integer"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "what is missing, what is not tied"
        },
        "graph_breaks": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/GraphBreak"
          },
          "description": "of the profiled copy",
          "default": []
        },
        "memory": {
          "anyOf": [
            {
              "$ref": "#/$defs/ProfileMemory"
            },
            {
              "type": "null"
            }
          ],
          "description": "peak and allocated bytes of one call, compiled and eager (null: not measured)",
          "default": null
        },
        "interrupted": {
          "type": "boolean",
          "description": "Ctrl-C stopped it: what was measured (see notes[0])",
          "default": false
        },
        "schema_version": {
          "type": "integer"
        },
        "record": {
          "type": "string"
        },
        "cell_names": {
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "description": "each notebook cell's code file the record names (a break's file), as written there -> the cell as the notebook names it (`cell [2]`) (published)",
          "default": {}
        },
        "truncated": {
          "type": "boolean",
          "description": "set when published with some kernels or lines left out",
          "default": false
        },
        "omitted": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Omission"
          },
          "description": "kernels or lines left out of a published output to keep it within its byte budget (`how` gets them)",
          "default": []
        }
      },
      "required": [
        "name",
        "repeat",
        "kernels",
        "lines",
        "filename",
        "wall_s",
        "kernel_s",
        "outside_graphs_s",
        "overhead_s",
        "unaccounted_s",
        "untied_s",
        "eager_wall_s",
        "eager_untied_s",
        "accounted",
        "compiles",
        "recompiles_during_profile",
        "notes",
        "schema_version",
        "record"
      ],
      "additionalProperties": false
    },
    "KernelTime": {
      "title": "KernelTime",
      "type": "object",
      "description": "Measured time of one generated kernel or extern call, over all profiled calls.",
      "properties": {
        "name": {
          "type": "string",
          "description": "as in the report's kernels, or the profiler event's name"
        },
        "kind": {
          "type": "string",
          "description": "kernel | extern | other (allocations, views, unknown ops)"
        },
        "calls": {
          "type": "integer",
          "description": "launches over all profiled calls"
        },
        "total_s": {
          "type": "number",
          "description": "time over all profiled calls"
        },
        "mean_s": {
          "type": "number",
          "description": "per launch"
        },
        "share": {
          "type": "number",
          "description": "of all kernel time"
        },
        "compile_id": {
          "type": "string",
          "description": "the copy's compile that generated it (\"\" if none matched)"
        },
        "stage": {
          "type": "string",
          "description": "inference | forward | backward"
        },
        "event": {
          "type": "string",
          "description": "the profiler event name"
        },
        "lines": {
          "type": "array",
          "items": {
            "type": "integer"
          },
          "description": "in `Profile.filename`; empty: not tied"
        },
        "allocated_bytes": {
          "type": "integer",
          "description": "bytes allocated in one call for the buffers it writes (an allocation between two launches of a graph goes to the next launch: Inductor allocates just before use)",
          "default": 0
        }
      },
      "required": [
        "name",
        "kind",
        "calls",
        "total_s",
        "mean_s",
        "share",
        "compile_id",
        "stage",
        "event",
        "lines"
      ],
      "additionalProperties": false
    },
    "LineTime": {
      "title": "LineTime",
      "type": "object",
      "description": "One source line of the target: compiled and eager seconds per call.",
      "properties": {
        "lineno": {
          "type": "integer"
        },
        "line": {
          "type": "string",
          "description": "the source text"
        },
        "compiled_s": {
          "type": "number",
          "description": "kernel time per call (a fused kernel split over its lines)"
        },
        "eager_s": {
          "type": "number",
          "description": "eager time per call, inclusive of what the line calls"
        },
        "kernels": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "names of the kernels it fed"
        },
        "compiled_allocated_bytes": {
          "type": "integer",
          "description": "bytes its kernels allocated in one compiled call (a fused kernel's split evenly)",
          "default": 0
        },
        "eager_allocated_bytes": {
          "type": "integer",
          "description": "bytes allocated on this line in one eager call",
          "default": 0
        },
        "compiled_backward_s": {
          "type": "number",
          "description": "the part of `compiled_s` from backward kernels: a forward line feeds them, while eager runs that backward at the line that calls `backward()`",
          "default": 0
        },
        "speedup": {
          "type": [
            "number",
            "null"
          ],
          "description": "eager over compiled time of the same work: the line's forward kernels (null unless both)"
        }
      },
      "required": [
        "lineno",
        "line",
        "compiled_s",
        "eager_s",
        "kernels",
        "speedup"
      ],
      "additionalProperties": false
    },
    "ProfileMemory": {
      "title": "ProfileMemory",
      "type": "object",
      "description": "Where the memory of one call goes, compiled and eager (`Profile.memory`).",
      "properties": {
        "device": {
          "type": "string",
          "description": "`cpu` or `cuda:0`"
        },
        "peak_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "compiled: peak tensor bytes in use during one call"
        },
        "eager_peak_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "the same call run eagerly"
        },
        "allocated_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "compiled: bytes allocated during one call"
        },
        "eager_allocated_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "eager: bytes allocated during one call"
        },
        "outside_graphs_allocated_bytes": {
          "type": "integer",
          "description": "compiled: bytes allocated outside any graph (eager ops and Python between graphs)"
        },
        "untied_allocated_bytes": {
          "type": "integer",
          "description": "compiled: bytes allocated by kernels not tied to a line of the target"
        },
        "eager_untied_allocated_bytes": {
          "type": "integer",
          "description": "eager: bytes allocated outside the target's own lines (module call machinery ...)"
        },
        "saved_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "activations the forward saved for backward (null: nothing was saved)"
        },
        "eager_saved_bytes": {
          "type": [
            "integer",
            "null"
          ],
          "description": "the same, eager"
        },
        "across_breaks_bytes": {
          "type": "integer",
          "description": "bytes in use between two graphs: intermediates a graph break keeps alive (largest)"
        },
        "timeline": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/MemoryPoint"
          },
          "description": "compiled, one call"
        },
        "eager_timeline": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/MemoryPoint"
          },
          "description": "eager, one call"
        },
        "note": {
          "type": "string",
          "description": "how it was measured"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "what could not be measured or tied"
        }
      },
      "required": [
        "device",
        "peak_bytes",
        "eager_peak_bytes",
        "allocated_bytes",
        "eager_allocated_bytes",
        "outside_graphs_allocated_bytes",
        "untied_allocated_bytes",
        "eager_untied_allocated_bytes",
        "saved_bytes",
        "eager_saved_bytes",
        "across_breaks_bytes",
        "timeline",
        "eager_timeline",
        "note",
        "notes"
      ],
      "additionalProperties": false
    },
    "MemoryPoint": {
      "title": "MemoryPoint",
      "type": "object",
      "description": "Bytes in use at one moment of one call (a step of the memory timeline).",
      "properties": {
        "t_s": {
          "type": "number",
          "description": "seconds since the call started"
        },
        "bytes": {
          "type": "integer",
          "description": "tensor bytes in use, above those in use just before the call"
        },
        "what": {
          "type": "string",
          "description": "what allocated or freed at this point: a kernel, an op, `line N`"
        }
      },
      "required": [
        "t_s",
        "bytes",
        "what"
      ],
      "additionalProperties": false
    },
    "Suggestions": {
      "title": "Suggestions",
      "type": "object",
      "description": "What `suggest()` returns: `baseline`, `problems` and `items`.",
      "properties": {
        "name": {
          "type": "string",
          "description": "the function or module class"
        },
        "baseline": {
          "$ref": "#/$defs/Measured",
          "description": "a fresh copy compiled as it is, the calls replayed"
        },
        "problems": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Problem"
          },
          "description": "the baseline's breaks, recompiles"
        },
        "items": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Suggestion"
          },
          "description": "one per proposed change"
        },
        "calls": {
          "type": "integer",
          "description": "calls replayed per trial"
        },
        "budget_s": {
          "type": "number",
          "description": "seconds allowed for all trials"
        },
        "elapsed_s": {
          "type": "number",
          "description": "seconds the trials took"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "interrupted": {
          "type": "boolean",
          "description": "Ctrl-C stopped it: the trials done so far (see notes[0])",
          "default": false
        },
        "schema_version": {
          "type": "integer"
        },
        "record": {
          "type": "string"
        },
        "cell_names": {
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "description": "each notebook cell's code file the record names, as written there -> the cell as the notebook names it (`cell [2]`) (published)",
          "default": {}
        }
      },
      "required": [
        "name",
        "baseline",
        "problems",
        "items",
        "calls",
        "budget_s",
        "elapsed_s",
        "notes",
        "schema_version",
        "record"
      ],
      "additionalProperties": false
    },
    "Measured": {
      "title": "Measured",
      "type": "object",
      "description": "Counts and run time of one setup (the baseline, or a trial on a copy).",
      "properties": {
        "graphs": {
          "type": "integer",
          "description": "graphs compiled over the calls"
        },
        "breaks": {
          "type": "integer",
          "description": "graph breaks"
        },
        "recompiles": {
          "type": "integer",
          "description": "compiles after a guard of this setup's own versions failed"
        },
        "time_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "median steady-state time of one pass over the calls"
        },
        "error": {
          "type": "string",
          "description": "the trial failed: the exception"
        },
        "timing_note": {
          "type": "string",
          "description": "e.g. Dynamo frame compiles during the timed passes"
        }
      },
      "required": [
        "graphs",
        "breaks",
        "recompiles",
        "time_s",
        "error",
        "timing_note"
      ],
      "additionalProperties": false
    },
    "Problem": {
      "title": "Problem",
      "type": "object",
      "description": "A graph break or recompile of the baseline: reason and where.",
      "properties": {
        "kind": {
          "type": "string",
          "description": "graph_break | recompile"
        },
        "reason": {
          "type": "string"
        },
        "filename": {
          "type": [
            "string",
            "null"
          ]
        },
        "lineno": {
          "type": [
            "integer",
            "null"
          ]
        },
        "line": {
          "type": "string"
        },
        "in_library": {
          "type": "boolean",
          "description": "the break is inside code the user cannot edit"
        }
      },
      "required": [
        "kind",
        "reason",
        "filename",
        "lineno",
        "line",
        "in_library"
      ],
      "additionalProperties": false
    },
    "Suggestion": {
      "title": "Suggestion",
      "type": "object",
      "description": "One proposed change and what trying it on a copy showed.",
      "properties": {
        "problem": {
          "$ref": "#/$defs/Problem",
          "description": "the break or recompile it addresses"
        },
        "kind": {
          "type": "string",
          "description": "setting | option | rewrite"
        },
        "change": {
          "type": "string",
          "description": "the exact thing to do, as code"
        },
        "verified": {
          "type": "boolean",
          "description": "fewer breaks (or recompiles) on the copy and the same result"
        },
        "status": {
          "type": "string",
          "description": "verified | tried, did not help | not tried"
        },
        "after": {
          "anyOf": [
            {
              "$ref": "#/$defs/Measured"
            },
            {
              "type": "null"
            }
          ],
          "description": "the trial on a copy (null: not tried)"
        },
        "same_result": {
          "$ref": "#/$defs/SameResult",
          "description": "vs the eager original"
        },
        "note": {
          "type": "string",
          "description": "what it costs or risks, what happened"
        }
      },
      "required": [
        "problem",
        "kind",
        "change",
        "verified",
        "status",
        "after",
        "same_result",
        "note"
      ],
      "additionalProperties": false
    },
    "SameResult": {
      "title": "SameResult",
      "type": "object",
      "description": "The numeric check of a trial's outputs against the eager original's.",
      "properties": {
        "ok": {
          "type": [
            "boolean",
            "null"
          ],
          "description": "within the dtype's tolerance (null: not run, or not comparable)"
        },
        "max_abs_diff": {
          "type": [
            "number",
            "null"
          ],
          "description": "largest absolute difference to eager's output"
        },
        "tolerance": {
          "type": "string"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          }
        }
      },
      "required": [
        "ok",
        "max_abs_diff",
        "tolerance",
        "notes"
      ],
      "additionalProperties": false
    },
    "TraceRecord": {
      "title": "TraceRecord",
      "type": "object",
      "description": "A TORCH_TRACE run (one log file or a directory of per-rank logs).",
      "properties": {
        "path": {
          "type": "string",
          "description": "the log file or directory opened"
        },
        "ranks": {
          "type": "array",
          "items": {
            "type": "integer"
          },
          "description": "sorted; empty when no rank is known"
        },
        "compiles": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/TraceCompile"
          },
          "description": "log order, every rank"
        },
        "problems": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "\"file:line: what was wrong\""
        },
        "files": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "the trace files read"
        },
        "unknown_events": {
          "type": "object",
          "additionalProperties": {
            "type": "integer"
          },
          "description": "event kind -> count"
        },
        "events": {
          "type": "integer",
          "description": "trace lines read"
        },
        "bytes_read": {
          "type": "integer",
          "description": "bytes of log indexed",
          "default": 0
        },
        "interrupted": {
          "type": "boolean",
          "description": "Ctrl-C stopped it: only the files read whole are in (problems[0] names the rest)",
          "default": false
        },
        "schema_version": {
          "const": 1
        },
        "record": {
          "const": "trace"
        },
        "divergences": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Divergence"
          },
          "description": "where the ranks compiled differently"
        },
        "truncated": {
          "type": "boolean",
          "description": "set when published inline and some text was capped",
          "default": false
        },
        "omitted": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Omission"
          },
          "description": "parts left out of a published output to keep it within its byte budget (`how` gets them)",
          "default": []
        }
      },
      "required": [
        "path",
        "ranks",
        "compiles",
        "problems",
        "files",
        "unknown_events",
        "events",
        "schema_version",
        "record",
        "divergences"
      ],
      "additionalProperties": false
    },
    "TraceCompile": {
      "title": "TraceCompile",
      "type": "object",
      "description": "One Dynamo compile attempt read from a trace (`compile_id` like `0/0`, `0/0_1`).",
      "properties": {
        "rank": {
          "type": [
            "integer",
            "null"
          ],
          "description": "the rank whose log holds it (null when no rank is known)"
        },
        "compile_id": {
          "type": "string",
          "description": "as Dynamo writes it, without brackets: \"0/0\", \"1/2\", \"0/0_1\""
        },
        "frame": {
          "type": "string",
          "description": "\"fn file:line\" of the frame being compiled"
        },
        "function": {
          "type": "string",
          "description": "the frame's function name"
        },
        "filename": {
          "type": "string",
          "description": "the frame's file"
        },
        "lineno": {
          "type": "integer",
          "description": "the frame's first line"
        },
        "status": {
          "enum": [
            "compiled",
            "failed",
            "restarted",
            "cache_hit"
          ]
        },
        "fail_reason": {
          "type": "string",
          "description": "why the compile failed or restarted (\"\" when it compiled)"
        },
        "compile_time_s": {
          "type": "number",
          "description": "from compilation_metrics"
        },
        "metric_phases": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "compilation_metrics"
        },
        "cache": {
          "type": "object",
          "additionalProperties": {
            "type": "integer"
          },
          "description": "hits and misses per cache layer"
        },
        "stack": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/SourceLine"
          },
          "description": "user stack, outermost first"
        },
        "log": {
          "type": "string",
          "description": "file:line of the compile's first event"
        },
        "phases": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "seconds per compile phase (metrics and chromium events)"
        },
        "graph_breaks": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/GraphBreak"
          },
          "description": "the compile's graph breaks"
        },
        "recompile_reason": {
          "type": "string",
          "description": "why this compile recompiled an earlier one (or \"\")"
        },
        "recompile_guard": {
          "type": "string",
          "description": "the guard that failed, when known (or \"\")"
        },
        "guards": {
          "type": "string",
          "description": "the guards Dynamo installed"
        },
        "graphs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "the FX graphs, as readable code"
        },
        "kernels": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Kernel"
          },
          "description": "every piece of generated code"
        },
        "output_code": {
          "type": "string",
          "description": "the generated module(s)"
        },
        "collectives": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "the collectives Inductor scheduled, in order (its inductor_collective_schedule: kernel names such as torch.ops._c10d_functional.all_reduce_.default)"
        },
        "runs_as": {
          "anyOf": [
            {
              "$ref": "#/$defs/RunsAs"
            },
            {
              "type": "null"
            }
          ],
          "description": "what torch runs in place of the frame, as far as the log holds it: a resume function's bytecode (torch logs no other), else the problem says it is not in this log",
          "default": null
        },
        "contents_omitted": {
          "type": "boolean",
          "description": "published without its contents (breaks, guards, graphs, code) to keep the output within its byte budget",
          "default": false
        }
      },
      "required": [
        "rank",
        "compile_id",
        "frame",
        "function",
        "filename",
        "lineno",
        "status",
        "fail_reason",
        "compile_time_s",
        "metric_phases",
        "cache",
        "stack",
        "log",
        "phases",
        "graph_breaks",
        "recompile_reason",
        "recompile_guard",
        "guards",
        "graphs",
        "kernels",
        "output_code",
        "collectives"
      ],
      "additionalProperties": false
    },
    "Divergence": {
      "title": "Divergence",
      "type": "object",
      "description": "Ranks that compiled differently: `kind`, the `groups` of ranks that agree, and `detail` (what differs, first place).",
      "properties": {
        "kind": {
          "enum": [
            "compile_ids",
            "collectives",
            "cache",
            "graphs",
            "guards"
          ]
        },
        "groups": {
          "type": "array",
          "items": {
            "type": "array",
            "items": {
              "type": "integer"
            }
          },
          "description": "ranks that agree with each other, one list per variant"
        },
        "detail": {
          "type": "string",
          "description": "what differs, first place"
        },
        "compile_id": {
          "type": "string",
          "description": "the first compile id where it shows"
        }
      },
      "required": [
        "kind",
        "groups",
        "detail",
        "compile_id"
      ],
      "additionalProperties": false
    },
    "Diagnosis": {
      "title": "Diagnosis",
      "type": "object",
      "description": "What `diagnose()` returns: does compiled code crash or change the numbers, in which layer, at which op and line, who is right, and which workarounds help.",
      "properties": {
        "name": {
          "type": "string",
          "description": "the function or module class"
        },
        "kind": {
          "enum": [
            "crash",
            "accuracy",
            "ok",
            "not run"
          ],
          "description": "crash | accuracy | ok, against eager (not run: no verdict, interrupted before one or nothing the call produced can be compared, e.g. a generator)"
        },
        "layer": {
          "anyOf": [
            {
              "enum": [
                "dynamo",
                "aot_autograd",
                "inductor"
              ]
            },
            {
              "type": "null"
            }
          ],
          "description": "the first rung of the ladder that shows the problem"
        },
        "summary": {
          "type": "string",
          "description": "the verdict in words (shown after the kind)"
        },
        "rungs": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Rung"
          },
          "description": "the ladder, lowest rung first"
        },
        "culprit": {
          "type": "string",
          "description": "the graph, op or kernel that brings the problem in (\"\" when not found)"
        },
        "filename": {
          "type": [
            "string",
            "null"
          ],
          "description": "where the culprit's line is"
        },
        "lineno": {
          "type": [
            "integer",
            "null"
          ],
          "description": "the culprit's line (1-based)"
        },
        "line": {
          "type": "string",
          "description": "its source text"
        },
        "bisection": {
          "anyOf": [
            {
              "$ref": "#/$defs/Bisection"
            },
            {
              "type": "null"
            }
          ],
          "description": "torch's CompilerBisector's answer (null: not run)"
        },
        "max_abs_diff": {
          "type": [
            "number",
            "null"
          ],
          "description": "compiled vs eager before any workaround"
        },
        "mismatched": {
          "type": [
            "integer",
            "null"
          ],
          "description": "elements outside the tolerance before any workaround"
        },
        "numel": {
          "type": "integer",
          "description": "elements compared"
        },
        "tolerance": {
          "type": "string",
          "description": "the tolerance used: assert_close's default for each dtype"
        },
        "error": {
          "type": "string",
          "description": "the crash: exception type and its first line"
        },
        "error_detail": {
          "type": "string",
          "description": "the crash's message, capped"
        },
        "reference": {
          "anyOf": [
            {
              "$ref": "#/$defs/Reference"
            },
            {
              "type": "null"
            }
          ],
          "description": "the float64 run (accuracy only; null: none)"
        },
        "workarounds": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Workaround"
          }
        },
        "inputs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "the arguments, described"
        },
        "options": {
          "type": "string",
          "description": "the compile options diagnosed (the user's, when nbcompile knows them)"
        },
        "eager_time_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "median time of an eager call"
        },
        "compiled_time_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "median time of a compiled call (null: it crashed)"
        },
        "budget_s": {
          "type": "number",
          "description": "seconds allowed"
        },
        "elapsed_s": {
          "type": "number",
          "description": "seconds it took"
        },
        "skipped": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "steps left out, and why"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "matmul_precision": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "on a CUDA GPU, the reduced matmul precision torch's settings put in force for what the graphs compute (\"TF32 matmuls\", ...; a note explains them); [] none, or not on CUDA",
          "default": []
        },
        "truncated": {
          "type": "boolean",
          "description": "texts were cut to fit the output budget (the kernel has them)"
        },
        "interrupted": {
          "type": "boolean",
          "description": "Ctrl-C stopped it: what was established so far (see notes[0])",
          "default": false
        },
        "schema_version": {
          "const": 1
        },
        "record": {
          "const": "diagnosis"
        },
        "cell_names": {
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "description": "each notebook cell's code file the record names, as written there -> the cell as the notebook names it (`cell [2]`) (published)",
          "default": {}
        }
      },
      "required": [
        "name",
        "kind",
        "layer",
        "summary",
        "rungs",
        "culprit",
        "filename",
        "lineno",
        "line",
        "bisection",
        "max_abs_diff",
        "mismatched",
        "numel",
        "tolerance",
        "error",
        "error_detail",
        "reference",
        "workarounds",
        "inputs",
        "options",
        "eager_time_s",
        "compiled_time_s",
        "budget_s",
        "elapsed_s",
        "skipped",
        "notes",
        "truncated",
        "schema_version",
        "record"
      ],
      "additionalProperties": false
    },
    "Rung": {
      "title": "Rung",
      "type": "object",
      "description": "One rung of the ladder: a fresh copy compiled with one backend, judged against eager.",
      "properties": {
        "backend": {
          "type": "string",
          "description": "torch.compile backend: eager, aot_eager, aot_eager_decomp_partition, inductor"
        },
        "layer": {
          "enum": [
            "dynamo",
            "aot_autograd",
            "inductor"
          ],
          "description": "the compiler layer this rung adds to the one below it"
        },
        "outcome": {
          "enum": [
            "ok",
            "accuracy",
            "crash",
            "not run"
          ]
        },
        "max_abs_diff": {
          "type": [
            "number",
            "null"
          ],
          "description": "largest abs difference to eager (null: none measured)"
        },
        "mismatched": {
          "type": [
            "integer",
            "null"
          ],
          "description": "elements outside the tolerance (null: none measured)"
        },
        "numel": {
          "type": "integer",
          "description": "elements compared"
        },
        "error": {
          "type": "string",
          "description": "the crash: exception type and its first line"
        },
        "first_call_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "the first call: compile and run"
        },
        "time_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "median time of a later call"
        },
        "options": {
          "type": "string",
          "description": "compile options besides the backend (the user's, on the top rung)"
        },
        "note": {
          "type": "string",
          "description": "why it did not run, or what to know about it"
        }
      },
      "required": [
        "backend",
        "layer",
        "outcome",
        "max_abs_diff",
        "mismatched",
        "numel",
        "error",
        "first_call_s",
        "time_s",
        "options",
        "note"
      ],
      "additionalProperties": false
    },
    "Bisection": {
      "title": "Bisection",
      "type": "object",
      "description": "What torch's `CompilerBisector` found: the backend, the compiler subsystem and the application of it (e.g. the lowering of one node) that brings the problem in.",
      "properties": {
        "backend": {
          "type": "string",
          "description": "the first backend that shows the problem (\"\" when none did)"
        },
        "subsystem": {
          "type": "string",
          "description": "e.g. lowerings, decomposition, post_grad_passes (\"\" when none found)"
        },
        "bisect_number": {
          "type": [
            "integer",
            "null"
          ],
          "description": "which application of the subsystem (0-based)"
        },
        "debug_info": {
          "type": "string",
          "description": "torch's note on it: a node name for lowerings, an op for decompositions"
        },
        "steps": {
          "type": "integer",
          "description": "compiles the bisection ran"
        },
        "elapsed_s": {
          "type": "number",
          "description": "seconds it took"
        },
        "note": {
          "type": "string",
          "description": "stopped early, or found nothing"
        }
      },
      "required": [
        "backend",
        "subsystem",
        "bisect_number",
        "debug_info",
        "steps",
        "elapsed_s",
        "note"
      ],
      "additionalProperties": false
    },
    "Reference": {
      "title": "Reference",
      "type": "object",
      "description": "The same function run in float64: who is closer to it, eager or compiled. Made eagerly with floating inputs and parameters upcast, or, for a function that casts inside, through its captured graph with every cast rewritten to float64 (torch's `cast_to_fp64`); `note` says which, or why there is none.",
      "properties": {
        "dtype": {
          "type": "string"
        },
        "eager_error": {
          "type": [
            "number",
            "null"
          ],
          "description": "largest abs difference of eager's result to float64's"
        },
        "compiled_error": {
          "type": [
            "number",
            "null"
          ],
          "description": "the same for the compiled result"
        },
        "eager_mean_error": {
          "type": [
            "number",
            "null"
          ],
          "description": "mean abs difference of eager's result to float64's"
        },
        "compiled_mean_error": {
          "type": [
            "number",
            "null"
          ],
          "description": "the same for the compiled result"
        },
        "closer": {
          "enum": [
            "eager",
            "compiled",
            "neither",
            "unknown"
          ],
          "description": "the one whose largest error is at most 0.8 of the other's; neither when they are close; unknown when there is no reference (no verdict: the note says why)"
        },
        "note": {
          "type": "string",
          "description": "how it was made, or why there is none"
        }
      },
      "required": [
        "dtype",
        "eager_error",
        "compiled_error",
        "eager_mean_error",
        "compiled_mean_error",
        "closer",
        "note"
      ],
      "additionalProperties": false
    },
    "Workaround": {
      "title": "Workaround",
      "type": "object",
      "description": "A change tried on a copy, with its measured effect and its cost in time.",
      "properties": {
        "kind": {
          "type": "string",
          "description": "setting | backend | disable | upcast"
        },
        "change": {
          "type": "string",
          "description": "the change, as code"
        },
        "verified": {
          "type": "boolean",
          "description": "on the copy it removes the crash, or brings the result within tolerance"
        },
        "status": {
          "enum": [
            "verified",
            "tried, did not help",
            "not tried"
          ]
        },
        "outcome": {
          "enum": [
            "ok",
            "accuracy",
            "crash",
            "not run"
          ],
          "description": "the copy's result judged against eager"
        },
        "max_abs_diff": {
          "type": [
            "number",
            "null"
          ],
          "description": "largest abs difference to eager after the change"
        },
        "mismatched": {
          "type": [
            "integer",
            "null"
          ],
          "description": "elements outside the tolerance after the change"
        },
        "numel": {
          "type": "integer",
          "description": "elements compared"
        },
        "first_call_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "the copy's first call: compile and run"
        },
        "time_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "median time of a later call"
        },
        "cost": {
          "type": "string",
          "description": "the time against the compiled (or eager) call, in words"
        },
        "reference_error": {
          "type": [
            "number",
            "null"
          ],
          "description": "largest abs difference of the changed copy's result to the float64 run (null: none)"
        },
        "error": {
          "type": "string",
          "description": "the copy crashed: exception type and its first line"
        },
        "note": {
          "type": "string",
          "description": "what it changes, what it costs or risks, why it was not tried"
        }
      },
      "required": [
        "kind",
        "change",
        "verified",
        "status",
        "outcome",
        "max_abs_diff",
        "mismatched",
        "numel",
        "first_call_s",
        "time_s",
        "cost",
        "reference_error",
        "error",
        "note"
      ],
      "additionalProperties": false
    },
    "CompileTime": {
      "title": "CompileTime",
      "type": "object",
      "description": "The result of `compile_time()`: the cold and warm-restart first calls of fresh processes, where the seconds went, and each remedy tried.",
      "properties": {
        "name": {
          "type": "string",
          "description": "the function's `__name__` (or the module's class name)"
        },
        "cold_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "first call in a fresh process with empty caches"
        },
        "warm_restart_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "first call in a fresh process with a warm cache"
        },
        "steady_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "steady-state run time of the compiled call"
        },
        "where": {
          "$ref": "#/$defs/Where",
          "description": "the split of the cold compile"
        },
        "remedies": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/Remedy"
          },
          "description": "one per kind, in order"
        },
        "runs": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/FreshRun"
          },
          "description": "every child process, in order"
        },
        "kernel_compiles": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/FrameTime"
          },
          "description": "This kernel's compiles of the call's code (heard since `%load_ext`): each cache layer's outcome and what differed in the key from the frame's previous compile"
        },
        "how": {
          "type": "string",
          "description": "how the call was carried into the fresh processes"
        },
        "reproducible": {
          "type": "boolean",
          "description": "the fresh processes could rebuild the call"
        },
        "budget_s": {
          "type": "number",
          "description": "the wall-time budget (0: none)"
        },
        "elapsed_s": {
          "type": "number",
          "description": "wall time of the whole measurement"
        },
        "inputs": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "e.g. `Tensor[2, 16] float32 cpu`"
        },
        "environment": {
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "description": "torch, python, machine"
        },
        "created_at": {
          "type": "string",
          "description": "ISO 8601, UTC"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "interrupted": {
          "type": "boolean",
          "description": "stopped by Ctrl-C: what was measured until then"
        },
        "truncated": {
          "type": "boolean",
          "description": "texts or frames cut to the output budget when published"
        },
        "schema_version": {
          "const": 1
        },
        "record": {
          "const": "compile_time"
        }
      },
      "required": [
        "name",
        "cold_s",
        "warm_restart_s",
        "steady_s",
        "where",
        "remedies",
        "runs",
        "kernel_compiles",
        "how",
        "reproducible",
        "budget_s",
        "elapsed_s",
        "inputs",
        "environment",
        "created_at",
        "notes",
        "interrupted",
        "truncated",
        "schema_version",
        "record"
      ],
      "additionalProperties": false
    },
    "Where": {
      "title": "Where",
      "type": "object",
      "description": "Where a target's compile seconds went.",
      "properties": {
        "total_s": {
          "type": "number",
          "description": "all frame compiles together"
        },
        "phases": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "summed over frame compiles"
        },
        "frames": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/FrameTime"
          },
          "description": "one per frame compile, in order"
        },
        "recompile_s": {
          "type": "number",
          "description": "seconds spent in recompiles"
        },
        "repeated": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/RepeatedBlock"
          },
          "description": "blocks traced N times"
        },
        "caches": {
          "type": "object",
          "additionalProperties": {
            "type": "integer"
          },
          "description": "`layer outcome` -> count, e.g. `{\"fx_graph miss\": 1, \"aotautograd hit\": 2}`"
        }
      },
      "required": [
        "total_s",
        "phases",
        "frames",
        "recompile_s",
        "repeated",
        "caches"
      ],
      "additionalProperties": false
    },
    "FrameTime": {
      "title": "FrameTime",
      "type": "object",
      "description": "One frame compile: its seconds, phases and cache layers.",
      "properties": {
        "compile_id": {
          "type": "string",
          "description": "`\"0/1\"`: frame 0, its second compile"
        },
        "frame": {
          "type": "string",
          "description": "the code compiled (function name)"
        },
        "filename": {
          "type": "string"
        },
        "lineno": {
          "type": "integer",
          "description": "the code's first line"
        },
        "seconds": {
          "type": "number",
          "description": "the whole frame compile, as torch measured it"
        },
        "phases": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          },
          "description": "exclusive seconds per phase"
        },
        "graph_op_count": {
          "type": "integer",
          "description": "ops in the frame's graphs"
        },
        "recompile": {
          "type": "boolean",
          "description": "a recompile of a frame compiled before"
        },
        "recompile_reason": {
          "type": "string",
          "description": "the failed guard(s), in words"
        },
        "caches": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/CacheOutcome"
          },
          "description": "each layer's outcome"
        },
        "key_changes": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/KeyChange"
          },
          "description": "Components of the cache key that differ from the previous compile of this frame"
        },
        "cache_note": {
          "type": "string",
          "description": "why a cache missed, in words (or that torch gave no reason)"
        },
        "earlier": {
          "anyOf": [
            {
              "$ref": "#/$defs/EarlierCompile"
            },
            {
              "type": "null"
            }
          ],
          "description": "this frame's compile in an earlier kernel of this notebook (when this kernel had not compiled it before): `key_changes` then compare with that compile",
          "default": null
        }
      },
      "required": [
        "compile_id",
        "frame",
        "filename",
        "lineno",
        "seconds",
        "phases",
        "graph_op_count",
        "recompile",
        "recompile_reason",
        "caches",
        "key_changes",
        "cache_note"
      ],
      "additionalProperties": false
    },
    "CacheOutcome": {
      "title": "CacheOutcome",
      "type": "object",
      "description": "One cache layer's answer to one compile, in torch's words.",
      "properties": {
        "layer": {
          "type": "string",
          "description": "fx_graph | aotautograd | autotune | portable"
        },
        "outcome": {
          "type": "string",
          "description": "hit | miss | bypass (torch's `cache_state`)"
        },
        "detail": {
          "type": "string",
          "description": "torch's `cache_status_detailed` (e.g. `full_miss`, `guard_miss`)"
        },
        "reason": {
          "type": "string",
          "description": "torch's bypass reason; empty when torch gave none"
        },
        "key": {
          "type": "string",
          "description": "the cache key looked up"
        },
        "time_saved_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "compile time the hit saved, as torch measured it"
        }
      },
      "required": [
        "layer",
        "outcome",
        "detail",
        "reason",
        "key",
        "time_saved_s"
      ],
      "additionalProperties": false
    },
    "KeyChange": {
      "title": "KeyChange",
      "type": "object",
      "description": "One component of a cache key that differs from the previous compile of the frame (read from torch's own key details: `[hash] name: value` lines).",
      "properties": {
        "layer": {
          "type": "string",
          "description": "fx_graph | aotautograd"
        },
        "component": {
          "type": "string",
          "description": "torch's component name (`fx_kwargs`, `inductor_config`, `gm`...)"
        },
        "kind": {
          "type": "string",
          "description": "inductor_option | graph | inputs | torch_version | other"
        },
        "words": {
          "type": "string",
          "description": "what differed, in words"
        },
        "before": {
          "type": "string",
          "description": "the previous value (capped)"
        },
        "after": {
          "type": "string",
          "description": "this compile's value (capped)"
        }
      },
      "required": [
        "layer",
        "component",
        "kind",
        "words",
        "before",
        "after"
      ],
      "additionalProperties": false
    },
    "EarlierCompile": {
      "title": "EarlierCompile",
      "type": "object",
      "description": "The newest compile of the same frame in an earlier kernel of this notebook, read from the cache-key components that kernel saved (`earlier.py`).",
      "properties": {
        "saved_at": {
          "type": "string",
          "description": "when that kernel saved it, ISO 8601 UTC"
        },
        "compile_id": {
          "type": "string",
          "description": "its compile id there"
        },
        "same_cell": {
          "type": "boolean",
          "description": "the same file and line, or a cell with the same text"
        },
        "same_key": {
          "type": [
            "boolean",
            "null"
          ],
          "description": "every compared layer's key components equal (None: torch gave no components to compare)"
        },
        "words": {
          "type": "string",
          "description": "what differed, in words (or that nothing did, or that torch said nothing)"
        }
      },
      "required": [
        "saved_at",
        "compile_id",
        "same_cell",
        "same_key",
        "words"
      ],
      "additionalProperties": false
    },
    "RepeatedBlock": {
      "title": "RepeatedBlock",
      "type": "object",
      "description": "Identical modules (same class, same structure) traced once each: their code is inlined into the graph again and again.",
      "properties": {
        "path": {
          "type": "string",
          "description": "where they are in the module tree (`blocks`, `transformer.h`)"
        },
        "cls": {
          "type": "string",
          "description": "their class name"
        },
        "count": {
          "type": "integer",
          "description": "how many"
        },
        "traced_copies": {
          "type": "integer",
          "description": "Times the block's forward appears in the traced graphs (from the graph's source lines)"
        },
        "node_share": {
          "type": "number",
          "description": "share of the graphs' ops that come from these blocks"
        },
        "dynamo_s": {
          "type": "number",
          "description": "Dynamo and Inductor seconds estimated for them (phase time times `node_share`)"
        },
        "inductor_s": {
          "type": "number"
        }
      },
      "required": [
        "path",
        "cls",
        "count",
        "traced_copies",
        "node_share",
        "dynamo_s",
        "inductor_s"
      ],
      "additionalProperties": false
    },
    "Remedy": {
      "title": "Remedy",
      "type": "object",
      "description": "One way to cut compile time, tried on fresh processes.",
      "properties": {
        "kind": {
          "enum": [
            "regional",
            "nested_region",
            "dynamic",
            "portable_cache",
            "precompiled"
          ]
        },
        "change": {
          "type": "string",
          "description": "the code a user would write"
        },
        "status": {
          "type": "string",
          "description": "verified | did not help | inconclusive | does not apply | failed | not reproducible | not tried"
        },
        "verified": {
          "type": "boolean",
          "description": "a measured cut in cold or restart time, with the same outputs"
        },
        "cold_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "first call with empty caches, after (median of rounds)"
        },
        "restart_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "first call after a restart, after (median of rounds)"
        },
        "steady_ratio": {
          "type": [
            "number",
            "null"
          ],
          "description": "steady-state time after / before"
        },
        "same_result": {
          "type": [
            "boolean",
            "null"
          ],
          "description": "outputs equal to eager's within the dtype's tolerance"
        },
        "max_abs_diff": {
          "type": [
            "number",
            "null"
          ],
          "description": "against eager's output"
        },
        "note": {
          "type": "string",
          "description": "the numbers in words, or torch's words for why it does not apply"
        },
        "rounds_before_s": {
          "type": "array",
          "items": {
            "type": "number"
          },
          "description": "The baseline's first call in each alternated round (cold, with empty caches)",
          "default": []
        },
        "rounds_after_s": {
          "type": "array",
          "items": {
            "type": "number"
          },
          "description": "The remedy's first call in the same rounds (cold, or after a restart), paired",
          "default": []
        },
        "cut": {
          "type": [
            "number",
            "null"
          ],
          "description": "median cut per round of the time it targets (0.3: 30 % less)",
          "default": null
        },
        "cut_low": {
          "type": [
            "number",
            "null"
          ],
          "description": "The interval of that cut the verdict rests on (with few rounds: their range)",
          "default": null
        },
        "cut_high": {
          "type": [
            "number",
            "null"
          ],
          "default": null
        }
      },
      "required": [
        "kind",
        "change",
        "status",
        "verified",
        "cold_s",
        "restart_s",
        "steady_ratio",
        "same_result",
        "max_abs_diff",
        "note"
      ],
      "additionalProperties": false
    },
    "FreshRun": {
      "title": "FreshRun",
      "type": "object",
      "description": "One child process: what it ran and what it measured.",
      "properties": {
        "label": {
          "type": "string",
          "description": "baseline cold | baseline warm restart | regional cold | ..."
        },
        "status": {
          "type": "string",
          "description": "ok | failed | skipped"
        },
        "error": {
          "type": "string",
          "description": "`Type: first line` when failed"
        },
        "first_call_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "first call(s): the compile and one run"
        },
        "steady_s": {
          "type": [
            "number",
            "null"
          ],
          "description": "median run time after the first call"
        },
        "wall_s": {
          "type": "number",
          "description": "the child process from start to end, imports included"
        },
        "frames_compiled": {
          "type": "integer",
          "description": "frame compiles the child saw"
        },
        "graph_ops": {
          "type": "integer",
          "description": "ops Dynamo traced into graphs (torch's `graph_op_count`, summed)"
        },
        "caches": {
          "type": "object",
          "additionalProperties": {
            "type": "integer"
          },
          "description": "`layer outcome` -> count"
        },
        "same_result": {
          "type": [
            "boolean",
            "null"
          ],
          "description": "output equal to eager's within the dtype's tolerance"
        },
        "max_abs_diff": {
          "type": [
            "number",
            "null"
          ],
          "description": "against eager's output"
        }
      },
      "required": [
        "label",
        "status",
        "error",
        "first_call_s",
        "steady_s",
        "wall_s",
        "frames_compiled",
        "graph_ops",
        "caches",
        "same_result",
        "max_abs_diff"
      ],
      "additionalProperties": false
    }
  }
};
