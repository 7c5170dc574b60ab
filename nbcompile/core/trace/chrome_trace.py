"""A target's compile events as a Chrome trace file (Perfetto, ``chrome://tracing``).

torch emits each compile phase as a ``chromium_event`` (``ph`` ``B``/``E`` pairs and
``i`` instants, ``ts`` in microseconds); the compile builder keeps them per compile
(``CompileRecord.chromium_events``). This module only gathers and writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..records import CompileRecord


def chrome_trace(compiles: Iterable[CompileRecord]) -> dict[str, Any]:
    """``{"traceEvents": [...]}`` of the compiles' events, in time order.

    Every event gets a ``pid``/``tid`` (0 when torch left them out) and its compile id in
    ``args.compile_id``, so the viewer can tell compiles apart.
    """
    events: list[dict[str, Any]] = []
    for compile_ in compiles:
        for raw in compile_.chromium_events:
            event = {"pid": 0, "tid": 0, **raw}
            args = event.get("args")
            event["args"] = {"compile_id": compile_.compile_id,
                             **(args if isinstance(args, dict) else {})}
            events.append(event)
    events.sort(key=lambda e: e["ts"])  # stable: a B before its E at the same ts
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def save_chrome_trace(compiles: Iterable[CompileRecord], path: str | Path) -> Path:
    """Write ``chrome_trace(compiles)`` as JSON to ``path``; return the path.

    Raises ``ValueError`` when no compile has events (nothing compiled yet, or the
    records came from a saved notebook, whose published records leave them out).
    """
    trace = chrome_trace(compiles)
    if not trace["traceEvents"]:
        raise ValueError("no compile events to write: call the compiled target first "
                         "(compilation happens at the first call)")
    out = Path(path)
    out.write_text(json.dumps(trace), encoding="utf-8")
    return out
