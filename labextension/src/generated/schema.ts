/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs.
 * Do not edit: run `npm run gen:types`. Read by ../validate.ts. */

export const RECORD_SCHEMA: unknown = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "application/vnd.nbcompile.v1+json",
  "title": "nbcompile record, schema version 1",
  "description": "What the kernel publishes under the MIME type application/vnd.nbcompile.v1+json. Documented in docs/records.md. Consumers must ignore unknown fields and unknown record kinds.",
  "type": "object",
  "required": [
    "schema_version",
    "record"
  ],
  "properties": {
    "schema_version": {
      "const": 1
    },
    "record": {
      "type": "string"
    }
  },
  "allOf": [
    {
      "if": {
        "properties": {
          "record": {
            "const": "summary"
          }
        }
      },
      "then": {
        "required": [
          "targets",
          "cell",
          "updated_at"
        ],
        "properties": {
          "cell": {
            "$ref": "#/$defs/cell"
          },
          "updated_at": {
            "type": "number"
          },
          "targets": {
            "type": "array",
            "items": {
              "$ref": "#/$defs/target"
            }
          }
        }
      }
    },
    {
      "if": {
        "properties": {
          "record": {
            "const": "target"
          }
        }
      },
      "then": {
        "$ref": "#/$defs/target"
      }
    }
  ],
  "$defs": {
    "cell": {
      "type": "object",
      "properties": {
        "filename": {
          "type": "string"
        },
        "execution_count": {
          "type": [
            "integer",
            "null"
          ]
        },
        "cell_id": {
          "type": [
            "string",
            "null"
          ]
        }
      }
    },
    "sourceLine": {
      "type": "object",
      "required": [
        "filename",
        "lineno"
      ],
      "properties": {
        "filename": {
          "type": "string"
        },
        "lineno": {
          "type": "integer"
        },
        "line": {
          "type": "string"
        }
      }
    },
    "graphBreak": {
      "type": "object",
      "required": [
        "reason",
        "filename",
        "lineno",
        "line",
        "hint"
      ],
      "properties": {
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
        "hint": {
          "type": "string"
        },
        "explanation": {
          "type": "string"
        },
        "gb_type": {
          "type": "string"
        },
        "compile_id": {
          "type": "string"
        },
        "stack": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/sourceLine"
          }
        }
      }
    },
    "recompile": {
      "type": "object",
      "required": [
        "reason",
        "compile_id"
      ],
      "properties": {
        "reason": {
          "type": "string"
        },
        "compile_id": {
          "type": "string"
        },
        "guard": {
          "type": "string"
        }
      }
    },
    "kernel": {
      "type": "object",
      "required": [
        "name",
        "language",
        "kind",
        "source",
        "size"
      ],
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
        "kind": {
          "enum": [
            "kernel",
            "extern",
            "wrapper"
          ]
        },
        "source": {
          "type": "string"
        },
        "size": {
          "type": "integer"
        },
        "compile_id": {
          "type": "string"
        },
        "ops": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "lines": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/sourceLine"
          }
        },
        "stage": {
          "type": "string"
        },
        "nodes": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "handle": {
          "type": "string"
        }
      }
    },
    "compile": {
      "type": "object",
      "required": [
        "compile_id",
        "frame",
        "status",
        "graphs",
        "guards",
        "times"
      ],
      "properties": {
        "compile_id": {
          "type": "string"
        },
        "frame": {
          "type": "string"
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
          "type": "string"
        },
        "recompile_reason": {
          "type": "string"
        },
        "graphs": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "graph_op_count": {
          "type": "integer"
        },
        "guards": {
          "type": "string"
        },
        "output_code": {
          "type": "string"
        },
        "kernels": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/kernel"
          }
        },
        "graph_breaks": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/graphBreak"
          }
        },
        "times": {
          "type": "object",
          "additionalProperties": {
            "type": "number"
          }
        },
        "cache": {
          "type": "object",
          "additionalProperties": {
            "type": "integer"
          }
        },
        "post_grad_graphs": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "recompile_limit": {
          "type": "integer"
        },
        "recompile_guard": {
          "type": "string"
        }
      }
    },
    "error": {
      "type": [
        "object",
        "null"
      ],
      "required": [
        "type",
        "message"
      ],
      "properties": {
        "type": {
          "type": "string"
        },
        "message": {
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
        "hint": {
          "type": "string"
        },
        "stack": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/sourceLine"
          }
        }
      }
    },
    "target": {
      "type": "object",
      "required": [
        "schema_version",
        "record",
        "id",
        "name",
        "kind",
        "options",
        "status",
        "cell",
        "compiles",
        "graph_count",
        "graph_breaks",
        "recompiles",
        "kernels",
        "output_code",
        "compile_time_s",
        "graph_break_count",
        "recompile_count",
        "kernel_count"
      ],
      "properties": {
        "schema_version": {
          "const": 1
        },
        "record": {
          "const": "target"
        },
        "id": {
          "type": "string"
        },
        "name": {
          "type": "string"
        },
        "kind": {
          "enum": [
            "function",
            "module"
          ]
        },
        "options": {
          "type": "object"
        },
        "status": {
          "enum": [
            "pending",
            "compiling",
            "compiled",
            "failed",
            "disabled"
          ]
        },
        "wrapper": {
          "type": [
            "string",
            "null"
          ]
        },
        "compiled_object": {
          "type": "string"
        },
        "cell": {
          "$ref": "#/$defs/cell"
        },
        "notes": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "error": {
          "$ref": "#/$defs/error"
        },
        "compiling_since": {
          "type": [
            "number",
            "null"
          ]
        },
        "compiles": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/compile"
          }
        },
        "graph_count": {
          "type": "integer"
        },
        "graph_breaks": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/graphBreak"
          }
        },
        "recompiles": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/recompile"
          }
        },
        "kernels": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/kernel"
          }
        },
        "output_code": {
          "type": "string"
        },
        "compile_time_s": {
          "type": "number"
        },
        "graph_break_count": {
          "type": "integer"
        },
        "recompile_count": {
          "type": "integer"
        },
        "kernel_count": {
          "type": "integer"
        },
        "truncated": {
          "type": "boolean"
        },
        "advice": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/advice"
          }
        },
        "annotations": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/lineAnnotation"
          }
        },
        "code_diffs": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/codeDiff"
          }
        },
        "preview": {
          "type": "string"
        }
      }
    },
    "advice": {
      "type": "object",
      "required": [
        "kind",
        "message"
      ],
      "properties": {
        "kind": {
          "type": "string"
        },
        "message": {
          "type": "string"
        },
        "fix": {
          "type": "string"
        }
      }
    },
    "lineAnnotation": {
      "type": "object",
      "required": [
        "filename",
        "lineno",
        "line",
        "category"
      ],
      "properties": {
        "filename": {
          "type": "string"
        },
        "lineno": {
          "type": "integer"
        },
        "line": {
          "type": "string"
        },
        "category": {
          "enum": [
            "kernel",
            "extern",
            "graph_break",
            "error",
            "traced",
            "python",
            "pending",
            "outside",
            "blank"
          ]
        },
        "kernels": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "externs": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "kernel_refs": {
          "type": "array",
          "items": {
            "type": "integer"
          }
        },
        "ops": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "reason": {
          "type": "string"
        }
      }
    },
    "codeDiff": {
      "type": "object",
      "required": [
        "kernel",
        "compile_id",
        "previous_compile_id",
        "diff"
      ],
      "properties": {
        "kernel": {
          "type": "string"
        },
        "compile_id": {
          "type": "string"
        },
        "previous_compile_id": {
          "type": "string"
        },
        "previous_kernel": {
          "type": "string"
        },
        "stage": {
          "type": "string"
        },
        "language": {
          "type": "string"
        },
        "change": {
          "enum": [
            "changed",
            "added",
            "removed"
          ]
        },
        "cause": {
          "type": "string"
        },
        "diff": {
          "type": "string"
        },
        "added": {
          "type": "integer"
        },
        "removed": {
          "type": "integer"
        }
      }
    }
  }
};
