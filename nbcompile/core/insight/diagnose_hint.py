"""Where a failed compile or a numeric difference points the user: ``%diagnose``; and
where ``%diagnose`` or ``%suggest`` ending with torch's fault points: ``%repro``.

One wording each, shown by ``%compare``'s rows (a mode that fails or changes the
numbers), by a ``%%compile`` target whose compile failed (its record's notes: the inline
summary and the inspector show them as published), and by the notes of a diagnosis or
suggestions that leave the problem to PyTorch.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

#: What ``%diagnose`` does, in the words every hint uses.
DIAGNOSE_DOES = "finds the layer, op and line and tries workarounds on copies"
#: The hint of a ``%compare`` row.
DIAGNOSE_HINT = f"nbcompile.diagnose(fn, *args) / %diagnose {DIAGNOSE_DOES}"
#: Failures the hint is not for: an interrupt (nothing went wrong) and a graph break under
#: fullgraph=True (the summary names its line and reason already).
NOT_FOR = frozenset({"KeyboardInterrupt", "Unsupported"})


def call_text(name: str, params: Sequence[str]) -> str:
    """``name(a, b)``: the call with the parameter names standing for the user's inputs."""
    return f"{name}({', '.join(params)})"


def required_params(fn: Any) -> list[str]:
    """The parameters a call of ``fn`` must pass, as written in a call (``*args``, ``k=k``)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ["..."]
    out = []
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            out.append(f"**{p.name}")
        elif p.default is p.empty:
            out.append(f"{p.name}={p.name}" if p.kind is p.KEYWORD_ONLY else p.name)
    return out


def failure_hint(name: str, params: Sequence[str], error_type: str) -> str:
    """The note of a target whose compile failed ("" for the failures it is not for)."""
    if error_type in NOT_FOR:
        return ""
    return (f"The compile failed: %diagnose {call_text(name, params)} (with your inputs) "
            f"{DIAGNOSE_DOES}.")


#: What ``%repro`` does, in the words every offer uses.
REPRO_DOES = ("writes a standalone script that shows it, proves it in a fresh process, and "
              "writes a report with the versions and the trace for PyTorch's issue tracker")


def repro_offer(name: str, params: Sequence[str], fact: str, why: str, target: bool) -> str:
    """The note offering ``%repro`` (``fact``: its ``--fact``) after ``why``; ``target``:
    whether ``name`` is a ``%%compile`` target (``%repro`` needs one)."""
    first = "" if target else f"compile {name} in a %%compile cell; then "
    return (f"{why}, so it is PyTorch's to fix: {first}%repro {call_text(name, params)} "
            f"--fact {fact} (with your inputs) {REPRO_DOES}.")
