"""One parser per structured-trace event kind: (metadata, payload) -> record fields.

Each parser is a pure function of one trace record (the metadata dict and payload string
that both torch's logging handler and a ``TORCH_TRACE`` log line hold) and returns the
``Fields`` it contributes to its compile. ``CompileBuilder`` merges them into a
``CompileRecord``; ``parser_for`` picks the parser. No IPython, no session state.

Field names the builder understands: ``stack`` (``dynamo_start``), ``graphs``,
``post_grad_graphs``, ``graph_breaks``, ``recompile_reasons``, ``error_stack``,
``provenance``, ``cache``, ``guards``, ``output_code`` + ``output_code_path``,
``phases``, ``chromium_events``, and ``metrics`` (a ``Metrics``, which closes the compile).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..records import TargetError
from .compile_id import CompileId
from .payloads import (
    explain_guard,
    parse_dynamo_message,
    parse_graph_break,
    recompile_reason_groups,
    source_line,
    split_recompile_reasons,
)
from .phases import compile_phases
from .stacks import parse_user_stack

Fields = dict[str, Any]
Parser = Callable[[Mapping[str, Any], str], Fields]

PROVENANCE_ARTIFACT = "inductor_provenance_tracking_kernel_stack_traces"


@dataclass(frozen=True)
class Phase:
    """One Chrome-trace event of a compile (``ph`` is ``B``egin / ``E``nd / ``X``)."""

    name: str
    ph: str
    ts_us: float
    cat: str = ""


@dataclass
class Metrics:
    """What ``compilation_metrics`` (the last event of a frame compile) says."""

    frame: str = ""
    filename: str = ""
    firstlineno: int = 0
    graph_op_count: int = 0
    recompile_limit: int = 0
    recompile_reasons: list[str] = field(default_factory=list)  # when no artifact had them
    recompile_newest: list[str] = field(default_factory=list)  # the newest version's
    times: dict[str, float] = field(default_factory=dict)
    error: str = ""  # "FailType: reason" of a failed compile
    failure: TargetError | None = None  # the same, for the target's error view
    phases: dict[str, float] = field(default_factory=dict)  # exclusive seconds (phases.py)
    guard_latency_s: float | None = None


def _data(metadata: Mapping[str, Any], kind: str) -> dict[str, Any]:
    value = metadata.get(kind)
    return value if isinstance(value, dict) else {}


def _compile_id(metadata: Mapping[str, Any]) -> str:
    cid = CompileId.from_metadata(metadata)
    return str(cid.frame_compile) if cid else ""


# --- Dynamo ---
def dynamo_start(metadata: Mapping[str, Any], payload: str) -> Fields:
    """The user stack that led to the compiled frame (filenames may be interned ints)."""
    stack = _data(metadata, "dynamo_start").get("stack", [])
    return {"stack": stack if isinstance(stack, list) else []}


def dynamo_output_graph(metadata: Mapping[str, Any], payload: str) -> Fields:
    return {"graphs": [payload]}


def dynamo_cpp_guards_str(metadata: Mapping[str, Any], payload: str) -> Fields:
    return {"guards": payload}


def graph_break_reason(metadata: Mapping[str, Any], payload: str) -> Fields:
    graph_break = parse_graph_break(payload, _compile_id(metadata))
    graph_break.stack = parse_user_stack(payload)
    return {"graph_breaks": [graph_break]}


def recompile_reasons(metadata: Mapping[str, Any], payload: str) -> Fields:
    """Every failed guard, and those of the newest compiled version: what changed this time."""
    groups = recompile_reason_groups(payload)
    return {"recompile_reasons": split_recompile_reasons(payload),
            "recompile_newest": groups[0] if groups else []}


def dynamo_error(metadata: Mapping[str, Any], payload: str) -> Fields:
    """A failed compile's artifact: the user stack at the failure."""
    return {"error_stack": parse_user_stack(payload)}


#: The cache key a ``*_cache_hit`` / ``*_cache_miss`` payload names (its ``"key"``),
#: read from the payload's start without parsing the rest (it can be long).
_CACHE_KEY = re.compile(r'"key":\s*"(?P<key>[A-Za-z0-9_]{1,128})"')


def cache_event(metadata: Mapping[str, Any], payload: str) -> Fields:
    """``*_cache_hit`` / ``*_cache_miss`` artifacts, counted by name, with the key."""
    name = _data(metadata, "artifact").get("name", "")
    m = _CACHE_KEY.search(payload[:4096]) if isinstance(payload, str) else None
    return {"cache": {name: 1}, **({"cache_keys": [(name, m.group("key"))]} if m else {})}


# --- Inductor ---
def post_grad_graph(metadata: Mapping[str, Any], payload: str) -> Fields:
    """Inductor's input graph (an artifact, or its own kind on FX-graph-cache hits)."""
    return {"post_grad_graphs": [payload]}


def provenance(metadata: Mapping[str, Any], payload: str) -> Fields:
    """Inductor's kernel -> source-line stack traces (JSON object)."""
    try:
        traces = json.loads(payload)
    except ValueError:
        return {}
    return {"provenance": traces} if isinstance(traces, dict) else {}


def inductor_output_code(metadata: Mapping[str, Any], payload: str) -> Fields:
    data = _data(metadata, "inductor_output_code")
    return {"output_code": payload,
            "output_code_path": data.get("file_path") or data.get("filename", "")}


def chromium_event(metadata: Mapping[str, Any], payload: str) -> Fields:
    """A Chrome-trace event (JSON payload) as a ``Phase`` plus the event itself (for
    ``CompileRecord.chromium_events``); nothing if malformed."""
    try:
        event = json.loads(payload)
    except ValueError:
        return {}
    if not isinstance(event, dict) or not isinstance(event.get("ts"), (int, float)):
        return {}
    return {"phases": [Phase(str(event.get("name", "")), str(event.get("ph", "")),
                             float(event["ts"]), str(event.get("cat", "")))],
            "chromium_events": [event]}


def compilation_metrics(metadata: Mapping[str, Any], payload: str) -> Fields:
    """Frame, op count, phase times, recompile limit and failure of a finished compile."""
    m = _data(metadata, "compilation_metrics")
    reason_text = "\n".join(_as_list(m.get("recompile_reason")))
    metrics = Metrics(
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
    )
    metrics.phases, metrics.guard_latency_s = compile_phases(m)
    fail_type = m.get("fail_type")
    if fail_type:
        metrics.error = f"{fail_type}: {m.get('fail_reason') or ''}".strip()
        filename = m.get("fail_user_frame_filename")
        lineno = m.get("fail_user_frame_lineno")
        message = parse_dynamo_message(str(m.get("fail_reason") or fail_type))
        metrics.failure = TargetError(
            type=str(fail_type).rsplit(".", 1)[-1].strip("'>"),
            message=message.summary,
            hint="\n".join(message.hints),
            filename=filename,
            lineno=lineno,
            line=source_line(filename, lineno),
        )
    return {"metrics": metrics}


def explain_reasons(reasons: list[str], newest: list[str] | None = None) -> str:
    """Recompile reasons in words, ``; ``-joined.

    With ``newest`` (the failed guards of the most recent compiled version), only those
    are worded, and the others counted: in a storm every recompile lists the guards of
    every earlier version (``k == 28; ...; k == 0``), while the user wants what changed.
    """
    if not newest or len(newest) >= len(reasons):
        return "; ".join(explain_guard(r) for r in reasons)
    older = len([r for r in reasons if r not in newest])
    words = "; ".join(explain_guard(r) for r in newest)
    if older:
        words += (f" (and {older} older compiled version{'s' if older > 1 else ''} did not "
                  "match either)")
    return words


#: Event kind -> parser. Artifacts are keyed ``artifact:<name>``; ``parser_for`` also maps
#: every ``*_cache_hit`` / ``*_cache_miss`` artifact to ``cache_event``.
PARSERS: dict[str, Parser] = {
    "dynamo_start": dynamo_start,
    "dynamo_output_graph": dynamo_output_graph,
    "dynamo_cpp_guards_str": dynamo_cpp_guards_str,
    "artifact:dynamo_graph_break_reason": graph_break_reason,
    "artifact:recompile_reasons": recompile_reasons,
    "artifact:dynamo_error": dynamo_error,
    "artifact:inductor_post_grad_graph": post_grad_graph,
    # torch 2.8 and 2.9 name a cold compile's post-grad graph so (its cache hits use the name above)
    "artifact:after_post_grad_graph": post_grad_graph,
    f"artifact:{PROVENANCE_ARTIFACT}": provenance,
    "inductor_post_grad_graph": post_grad_graph,
    "inductor_output_code": inductor_output_code,
    "chromium_event": chromium_event,
    "compilation_metrics": compilation_metrics,
}


def parser_for(kind: str, metadata: Mapping[str, Any]) -> Parser | None:
    """The parser of one trace record (``None``: nbcompile does not use this kind)."""
    if kind != "artifact":
        return PARSERS.get(kind)
    name = _data(metadata, "artifact").get("name", "")
    if name.endswith("_cache_hit") or name.endswith("_cache_miss"):
        return cache_event
    return PARSERS.get(f"artifact:{name}")


def parse(kind: str, metadata: Mapping[str, Any], payload: str) -> Fields:
    """The fields one trace record contributes (empty for kinds nbcompile ignores)."""
    parser = parser_for(kind, metadata)
    return parser(metadata, payload) if parser else {}


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
