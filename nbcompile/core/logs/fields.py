"""A log event's fields checked once, at indexing, so the parsers see well-typed values.

A malformed field is dropped and noted in the log's problems (``file:line: what``); an
event that cannot be read at all is noted and skipped (``event_problem``). Nothing here
raises on bad content.
"""

from __future__ import annotations

import math
import re
from typing import Any, TypeGuard

from ..trace.parsers import kernel_compile_times
from ..units import clip
from .events import LogEvent
from .files import TraceLog


def event_problem(log: TraceLog, event: LogEvent | None, error: BaseException) -> None:
    """Note an event that could not be read (it is skipped, the others still read)."""
    kind = (event.kind if event is not None else "") or "event"
    log.problem(event.lineno if event is not None else None, "event",
                f"{show(kind, 40)} event could not be read ({type(error).__name__}: "
                f"{show(str(error), 120)}); skipped")


def show(value: Any, limit: int = 40) -> str:
    """A value for a problem note, cut at ``limit`` characters."""
    text = value if isinstance(value, str) else repr(value)
    return clip(text, limit, "...")


def bad(log: TraceLog, event: LogEvent, name: str, value: Any, expected: str) -> None:
    """Note a field that is not what the parsers expect (it is ignored)."""
    log.problem(event.lineno, "field", f"{event.kind}: {name} is not {expected} "
                                       f"({show(repr(value))}); ignored")


def number(value: object) -> TypeGuard[int | float]:
    """A finite number of sane size (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) and abs(value) < 1e18


def whole(value: Any) -> int | None:
    """A line number or count from a JSON value (int, integral float, digits), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 1 << 62 else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value) if abs(value) < 1 << 62 else None
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,15}\s*", value):
        return int(value)
    return None


#: compilation_metrics fields the parsers read, by the type they must have.
_METRIC_TEXT = frozenset({"co_name", "co_filename", "fail_type", "fail_reason",
                          "fail_user_frame_filename", "dynamo_config"})
_METRIC_WHOLE = frozenset({"co_firstlineno", "graph_op_count", "fail_user_frame_lineno"})
#: Triton's compile time per kernel: ``'[["triton_poi_fused_add_0", 193503]]'``.
_KERNEL_TIMES = "triton_kernel_compile_times_us"
#: Config snapshots no parser reads (~30 kB a compile): not kept in the index.
_METRIC_UNREAD = frozenset({"inductor_config", "functorch_config", "compiler_config"})


def checked_metrics(log: TraceLog, event: LogEvent) -> dict[str, Any]:
    """``compilation_metrics`` with every malformed field it is read for dropped (noted)."""
    data = event.metadata.get(event.kind)
    if not isinstance(data, dict):
        if data is not None:
            bad(log, event, event.kind, data, "an object")
        return {}
    out: dict[str, Any] = {}
    for k, v in data.items():
        if v is None:
            out[k] = v
        elif k in _METRIC_UNREAD:
            continue
        elif k == _KERNEL_TIMES:  # a JSON text of [kernel name, us] pairs (GPU compiles)
            if len(kernel_compile_times(v)) or v in ("", "[]", []):
                out[k] = v
            else:
                bad(log, event, k, v, "[kernel name, microseconds] pairs")
        elif k in _METRIC_TEXT:
            if isinstance(v, str):
                out[k] = v
            else:
                bad(log, event, k, v, "text")
        elif k in _METRIC_WHOLE or k.endswith("_count"):
            n = whole(v)
            if n is None:
                bad(log, event, k, v, "a whole number")
            else:
                out[k] = n
        elif k.endswith(("_us", "_s", "_ms", "_ns")):
            if number(v):
                out[k] = v
            else:
                bad(log, event, k, v, "a finite number")
        elif k in ("recompile_reason", "restart_reasons"):
            if isinstance(v, str) or (isinstance(v, list)
                                       and all(isinstance(i, str) for i in v)):
                out[k] = v
            else:
                bad(log, event, k, v, "text or a list of texts")
        else:
            out[k] = v
    return out


def checked_start(log: TraceLog, event: LogEvent) -> dict[str, Any]:
    """``dynamo_start`` with its stack's frames well-typed (malformed parts noted)."""
    data = event.metadata.get(event.kind)
    if not isinstance(data, dict):
        if data is not None:
            bad(log, event, event.kind, data, "an object")
        return {"stack": []}
    stack = data.get("stack")
    if stack is None:
        return {**data, "stack": []}
    if not isinstance(stack, list):
        bad(log, event, "stack", stack, "a list of frames")
        return {**data, "stack": []}
    frames: list[dict[str, Any]] = []
    for frame in stack:
        if not isinstance(frame, dict):
            bad(log, event, "a stack frame", frame, "an object")
            continue
        checked = dict(frame)
        line = whole(frame.get("line", 0) or 0)
        if line is None:
            bad(log, event, "a stack frame's line", frame.get("line"), "a whole number")
        checked["line"] = line or 0
        for name in ("name", "loc"):
            if name in frame and not isinstance(frame[name], str):
                bad(log, event, f"a stack frame's {name}", frame[name], "text")
                checked[name] = ""
        filename = frame.get("filename")
        if filename is not None and (isinstance(filename, bool)
                                     or not isinstance(filename, (int, str))):
            bad(log, event, "a stack frame's filename", filename, "text or a string index")
            checked["filename"] = ""
        frames.append(checked)
    return {**data, "stack": frames}

