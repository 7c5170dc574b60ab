"""One parser per structured-trace event kind: (metadata, payload) -> its typed value.

Each parser is a pure function of one trace record (the metadata dict and payload string
that both torch's logging handler and a ``TORCH_TRACE`` log line hold) and returns the
value of its kind (``parsed``), or ``None`` when the record is malformed.
``CompileBuilder`` merges the values into a ``CompileRecord``; ``parser_for`` picks the
parser. No IPython, no session state.

``KINDS`` is the one list of event kinds: every kind torch 2.x writes that nbcompile
knows, its parser, and whether its payload is part of a compile's contents (which the
log reader reads on demand, not at indexing). The parser table and the log reader's
known and content kinds are derived from it.
"""

from __future__ import annotations

import ast
import json
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..records import TargetError
from ..units import clip
from .compile_id import CompileId
from .parsed import (
    CacheLookup,
    ChromiumEvent,
    CollectiveSchedule,
    DynamoError,
    DynamoStart,
    GraphBreakEvent,
    Guards,
    Metrics,
    OutputCode,
    OutputGraph,
    Parsed,
    Phase,
    PostGradGraph,
    Provenance,
    RecompileReasons,
    TransformedBytecode,
)
from .payloads import (
    explain_guard,
    parse_dynamo_message,
    parse_graph_break,
    recompile_reason_groups,
    recompile_versions,
    source_line,
    split_recompile_reasons,
)
from .phases import compile_phases
from .stacks import parse_user_stack, without_machinery

__all__ = ["BYTECODE_SUFFIX", "COLLECTIVE_SCHEDULE_ARTIFACT", "CONTENT_ARTIFACTS",
           "CONTENT_KINDS", "KINDS", "KNOWN_KINDS", "PARSERS", "PROVENANCE_ARTIFACT",
           "Metrics", "Parsed", "Phase", "explain_reasons", "is_content_artifact", "parse",
           "parser_for"]

Parser = Callable[[Mapping[str, Any], str], Parsed | None]

PROVENANCE_ARTIFACT = "inductor_provenance_tracking_kernel_stack_traces"
COLLECTIVE_SCHEDULE_ARTIFACT = "inductor_collective_schedule"
_MAX_COLLECTIVES = 100_000  # of one graph's schedule read (a hostile log's bound)
#: ``<co_name>`` + this: a resume function's transformed code, as ``dis`` text (torch 2.5+
#: logs it, and ``_ORIGINAL_BYTECODE``, for resume functions only).
BYTECODE_SUFFIX = "_MODIFIED_BYTECODE"
#: ``dis`` text kept of one logged code object, in characters (a hostile log's bound; under
#: ``runs_as``' own cap, so the mark stays).
_MAX_BYTECODE = 19_900


def _data(metadata: Mapping[str, Any], kind: str) -> dict[str, Any]:
    value = metadata.get(kind)
    return value if isinstance(value, dict) else {}


def _compile_id(metadata: Mapping[str, Any]) -> str:
    cid = CompileId.from_metadata(metadata)
    return str(cid.frame_compile) if cid else ""


# --- Dynamo ---
def dynamo_start(metadata: Mapping[str, Any], payload: str) -> DynamoStart:
    """The user stack that led to the compiled frame (filenames may be interned ints)."""
    stack = _data(metadata, "dynamo_start").get("stack", [])
    frames = tuple(f for f in stack if isinstance(f, Mapping)) if isinstance(stack, list) else ()
    return DynamoStart(frames)


def dynamo_output_graph(metadata: Mapping[str, Any], payload: str) -> OutputGraph:
    return OutputGraph(payload)


def dynamo_cpp_guards_str(metadata: Mapping[str, Any], payload: str) -> Guards:
    return Guards(payload)


def graph_break_reason(metadata: Mapping[str, Any], payload: str) -> GraphBreakEvent:
    graph_break = parse_graph_break(payload, _compile_id(metadata))
    graph_break.stack, graph_break.stack_dropped = without_machinery(parse_user_stack(payload))
    return GraphBreakEvent(graph_break)


def recompile_reasons(metadata: Mapping[str, Any], payload: str) -> RecompileReasons:
    """Every failed guard, and those of the newest compiled version: what changed this time."""
    groups = recompile_reason_groups(payload)
    return RecompileReasons(tuple(split_recompile_reasons(payload)),
                            tuple(groups[0]) if groups else (),
                            tuple(recompile_versions(payload)))


def dynamo_error(metadata: Mapping[str, Any], payload: str) -> DynamoError:
    """A failed compile's artifact: the user stack at the failure."""
    return DynamoError(without_machinery(parse_user_stack(payload))[0])


#: The cache key a ``*_cache_hit`` / ``*_cache_miss`` payload names (its ``"key"``),
#: read from the payload's start without parsing the rest (it can be long).
_CACHE_KEY = re.compile(r'"key":\s*"(?P<key>[A-Za-z0-9_]{1,128})"')


def cache_event(metadata: Mapping[str, Any], payload: str) -> CacheLookup:
    """``*_cache_hit`` / ``*_cache_miss`` artifacts, counted by name, with the key."""
    name = _data(metadata, "artifact").get("name", "")
    m = _CACHE_KEY.search(payload[:4096]) if isinstance(payload, str) else None
    return CacheLookup(name, m.group("key") if m else None)


def transformed_bytecode(metadata: Mapping[str, Any], payload: str
                         ) -> TransformedBytecode | None:
    """A resume function's transformed code as torch logged it (``dis`` text, capped)."""
    name = _data(metadata, "artifact").get("name", "")
    if not isinstance(name, str) or not isinstance(payload, str):
        return None
    more = len(payload) - _MAX_BYTECODE
    return TransformedBytecode(name.removesuffix(BYTECODE_SUFFIX)[:200],
                               clip(payload, _MAX_BYTECODE,
                                    f"\n... ({more} more characters in the log)"))


# --- Inductor ---
def post_grad_graph(metadata: Mapping[str, Any], payload: str) -> PostGradGraph:
    """Inductor's input graph (an artifact, or its own kind on FX-graph-cache hits)."""
    return PostGradGraph(payload)


def provenance(metadata: Mapping[str, Any], payload: str) -> Provenance | None:
    """Inductor's kernel -> source-line stack traces (JSON object)."""
    try:
        traces = json.loads(payload)
    except ValueError:
        return None
    return Provenance(traces) if isinstance(traces, dict) else None


def collective_schedule(metadata: Mapping[str, Any], payload: str
                        ) -> CollectiveSchedule | None:
    """The collectives of one Inductor graph, in order (a JSON list of kernel names; torch
    writes ``null`` for a collective without one). ``None`` when it is not such a list."""
    try:
        ops = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    if not isinstance(ops, list) or not all(op is None or isinstance(op, str) for op in ops):
        return None
    # names repeat: interned, each is held once however long the schedule
    return CollectiveSchedule(tuple(sys.intern("(unnamed)" if op is None else op[:200])
                                    for op in ops[:_MAX_COLLECTIVES]))


def inductor_output_code(metadata: Mapping[str, Any], payload: str) -> OutputCode:
    data = _data(metadata, "inductor_output_code")
    return OutputCode(payload, data.get("file_path") or data.get("filename", ""))


def chromium_event(metadata: Mapping[str, Any], payload: str) -> ChromiumEvent | None:
    """A Chrome-trace event (JSON payload) as a ``Phase`` plus the event itself (for
    ``CompileRecord.chromium_events``); ``None`` if malformed."""
    try:
        event = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(event, dict) or not isinstance(event.get("ts"), (int, float)):
        return None
    return ChromiumEvent(Phase(str(event.get("name", "")), str(event.get("ph", "")),
                               float(event["ts"]), str(event.get("cat", ""))), event)


def compilation_metrics(metadata: Mapping[str, Any], payload: str) -> Metrics:
    """Frame, op count, phase times, recompile limit and failure of a finished compile."""
    m = _data(metadata, "compilation_metrics")
    reason_text = "\n".join(_as_list(m.get("recompile_reason")))
    phases, guard_latency_s = compile_phases(m)
    error, failure = "", None
    fail_type = m.get("fail_type")
    if fail_type:
        error = f"{fail_type}: {m.get('fail_reason') or ''}".strip()
        filename = m.get("fail_user_frame_filename")
        lineno = m.get("fail_user_frame_lineno")
        message = parse_dynamo_message(str(m.get("fail_reason") or fail_type))
        failure = TargetError(
            type=str(fail_type).rsplit(".", 1)[-1].strip("'>"),
            message=message.summary,
            hint="\n".join(message.hints),
            filename=filename,
            lineno=lineno,
            line=source_line(filename, lineno),
        )
    return Metrics(
        frame=m.get("co_name") or "",
        filename=m.get("co_filename") or "",
        firstlineno=m.get("co_firstlineno") or 0,
        graph_op_count=m.get("graph_op_count") or 0,
        recompile_limit=_config_value(m.get("dynamo_config"), "recompile_limit"),
        recompile_reasons=split_recompile_reasons(reason_text),
        recompile_newest=(recompile_reason_groups(reason_text) or [[]])[0],
        times={
            k.removesuffix("_time_s") + "_s" if k != "entire_frame_compile_time_s" else "total_s":
            float(v)
            for k, v in m.items()
            if k.endswith("_time_s") and isinstance(v, (int, float))
        },
        error=error,
        failure=failure,
        phases=phases,
        guard_latency_s=guard_latency_s,
        restart_s=_restart_seconds(m),
        kernel_compile_s=kernel_compile_times(m.get("triton_kernel_compile_times_us")),
    )


def _restart_seconds(m: Mapping[str, Any]) -> float | None:
    """``dynamo_time_before_restart_s`` of a compile that restarted (torch lists its
    ``restart_reasons``): the tracing a graph break threw away; None otherwise."""
    seconds = m.get("dynamo_time_before_restart_s")
    if not m.get("restart_reasons") or not isinstance(seconds, (int, float)):
        return None
    return float(seconds) if math.isfinite(seconds) and seconds >= 0 else None


def kernel_compile_times(value: Any) -> dict[str, float]:
    """``triton_kernel_compile_times_us`` (a JSON text, or its list, of ``[kernel name,
    microseconds]`` pairs: how long Triton compiled each kernel) as seconds by name; pairs
    that are not a name and a finite number are left out."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    out: dict[str, float] = {}
    for pair in value if isinstance(value, list) else ():
        if (isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], str)
                and isinstance(pair[1], (int, float)) and not isinstance(pair[1], bool)
                and math.isfinite(pair[1]) and pair[1] >= 0):
            out[pair[0]] = round(out.get(pair[0], 0.0) + pair[1] / 1e6, 6)
    return out


def explain_reasons(reasons: list[str], newest: list[str] | None = None,
                    versions: int | None = None, unnamed: int = 0) -> str:
    """Recompile reasons in words, ``; ``-joined.

    With ``newest`` (the failed guards of the most recent compiled version), only those
    are worded, and the others counted: in a storm every recompile lists the guards of
    every earlier version (``k == 28; ...; k == 0``), while the user wants what changed.
    ``versions``: how many compiled versions torch tried (its record lists each, even
    those failing the same guard); ``unnamed``: earlier compiles of the frame when torch
    named only the newest version's guard.
    """
    if versions is not None and newest:
        older = versions - 1
        words = "; ".join(explain_guard(r) for r in newest)
    elif not newest or len(newest) >= len(reasons):
        older, words = 0, "; ".join(explain_guard(r) for r in reasons)
    else:
        older = len([r for r in reasons if r not in newest])
        words = "; ".join(explain_guard(r) for r in newest)
    if older > 0:
        words += (f" (and {older} older compiled version{'s' if older > 1 else ''} did not "
                  "match either)")
    if unnamed > 0 and words:
        words += (" (torch named only the newest compiled version's failed guard; this "
                  f"frame had {unnamed} earlier compile{'s' if unnamed > 1 else ''})")
    return words


# --- the event kinds ---
@dataclass(frozen=True)
class EventKind:
    """How nbcompile reads one event kind: its parser, and whether its payload is part of
    a compile's contents (the log reader reads those on demand; the others it indexes
    from their headers)."""

    parser: Parser
    content: bool


#: Event kind -> how it is read. Artifacts are keyed ``artifact:<name>``; ``parser_for``
#: also maps every ``*_cache_hit`` / ``*_cache_miss`` artifact to ``cache_event``, and
#: every ``*_MODIFIED_BYTECODE`` one (a content artifact) to ``transformed_bytecode``.
KINDS: dict[str, EventKind] = {
    "dynamo_start": EventKind(dynamo_start, content=False),
    "dynamo_output_graph": EventKind(dynamo_output_graph, content=True),
    "dynamo_cpp_guards_str": EventKind(dynamo_cpp_guards_str, content=True),
    "artifact:dynamo_graph_break_reason": EventKind(graph_break_reason, content=True),
    "artifact:recompile_reasons": EventKind(recompile_reasons, content=True),
    "artifact:dynamo_error": EventKind(dynamo_error, content=True),
    "artifact:inductor_post_grad_graph": EventKind(post_grad_graph, content=True),
    # torch 2.8 and 2.9 name a cold compile's post-grad graph so (its cache hits use the name above)
    "artifact:after_post_grad_graph": EventKind(post_grad_graph, content=True),
    f"artifact:{PROVENANCE_ARTIFACT}": EventKind(provenance, content=True),
    # indexed apart from the contents: the ranks' schedules are compared (logs/divergence.py)
    f"artifact:{COLLECTIVE_SCHEDULE_ARTIFACT}": EventKind(collective_schedule, content=False),
    "inductor_post_grad_graph": EventKind(post_grad_graph, content=True),
    "inductor_output_code": EventKind(inductor_output_code, content=True),
    "chromium_event": EventKind(chromium_event, content=False),
    "compilation_metrics": EventKind(compilation_metrics, content=False),
}
#: The other kinds torch 2.x writes, which no parser reads (the log reader indexes
#: ``bwd_compilation_metrics``' header and every artifact's name; the rest it skips).
UNPARSED_KINDS = frozenset({
    "artifact", "bwd_compilation_metrics", "dynamo_guards", "inductor_pre_grad_graph",
    "inductor_input_graph", "str", "describe_tensor", "describe_storage", "describe_source",
    "create_symbol", "create_unbacked_symbol", "expression_created", "guard_added",
    "guard_added_fast", "guard_on_data_dependent_error", "symbolic_shape_specialization",
    "propagate_real_tensors", "propagate_real_tensors_provenance", "aot_inference_graph",
    "aot_joint_graph", "aot_forward_graph", "aot_backward_graph", "compiled_autograd_graph",
    "optimize_ddp_split_graph", "optimize_ddp_split_child", "missing_fake_kernel",
    "mismatched_fake_kernel", "dump_file", "graph_dump", "link", "export",
    "exported_program", "stack",
})

#: Event kind -> parser (derived from ``KINDS``).
PARSERS: dict[str, Parser] = {kind: how.parser for kind, how in KINDS.items()}
#: Every event kind nbcompile knows (used or deliberately skipped): the rest are unknown.
KNOWN_KINDS = frozenset(k for k in KINDS if not k.startswith("artifact:")) | UNPARSED_KINDS
#: Event kinds (not artifacts) whose payload is part of a compile's contents.
CONTENT_KINDS = frozenset(k for k, how in KINDS.items()
                          if how.content and not k.startswith("artifact:"))
#: Artifact names whose payload is part of a compile's contents.
CONTENT_ARTIFACTS = frozenset(k.removeprefix("artifact:") for k, how in KINDS.items()
                              if how.content and k.startswith("artifact:"))


def parser_for(kind: str, metadata: Mapping[str, Any]) -> Parser | None:
    """The parser of one trace record (``None``: nbcompile does not use this kind)."""
    if kind != "artifact":
        return PARSERS.get(kind)
    name = _data(metadata, "artifact").get("name", "")
    if name.endswith("_cache_hit") or name.endswith("_cache_miss"):
        return cache_event
    if isinstance(name, str) and name.endswith(BYTECODE_SUFFIX):
        return transformed_bytecode
    return PARSERS.get(f"artifact:{name}")


def is_content_artifact(name: str) -> bool:
    """Whether an artifact's payload is part of a compile's contents."""
    return name in CONTENT_ARTIFACTS or name.endswith(BYTECODE_SUFFIX)


def parse(kind: str, metadata: Mapping[str, Any], payload: str) -> Parsed | None:
    """What one trace record says (``None`` for kinds nbcompile ignores and malformed
    records)."""
    parser = parser_for(kind, metadata)
    return parser(metadata, payload) if parser else None


def _config_value(config_json: Any, key: str) -> int:
    """An int from the JSON config snapshot ``compilation_metrics`` carries (0 if absent)."""
    try:
        value = json.loads(config_json).get(key) if isinstance(config_json, str) else None
    except ValueError:
        return 0
    return value if isinstance(value, int) else 0


def _as_list(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        try:
            parsed = ast.literal_eval(value)
            if isinstance(parsed, list):
                return [str(v) for v in parsed]
        except (ValueError, SyntaxError):
            pass
        return [value]
    return [str(v) for v in value]
