"""The steps of a long command (``compare``, ``profile``, ``suggest``, ``diagnose``,
``open_trace``), told as they start to an optional ``progress`` callback.

Core functions take ``progress: Progress | None``; they call ``tell(progress, ...)`` and know
nothing of how it is shown (``display/progress.py`` words and shows it). A callback that
raises is ignored (a display problem never costs the user the result); Ctrl-C is not
caught: a command stopped by it raises an ``Interrupted`` carrying its partial result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Step:
    """One step of a long command: ``what`` (``compiling``, ``warming up``, ``timing``,
    ``trial``...) of item ``index`` of ``total`` (1-based; 0: not counted), named ``label``
    (a mode, a trial), with the seconds of budget left when the step has one."""

    command: str  # compare | profile | suggest | diagnose
    what: str
    index: int = 0
    total: int = 0
    label: str = ""
    remaining_s: float | None = None


Progress = Callable[[Step], None]


def tell(progress: Progress | None, command: str, what: str, index: int = 0, total: int = 0,
         label: str = "", remaining_s: float | None = None) -> None:
    """Report a step to ``progress`` (nothing without one)."""
    if progress is None:
        return
    try:
        progress(Step(command, what, index, total, label, remaining_s))
    except Exception:  # a broken display must not break the measurement
        pass


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a long command: ``partial`` is its result so far, marked
    ``interrupted``; the user's objects and torch's settings are already put back."""

    def __init__(self, command: str, partial: Any) -> None:
        super().__init__(f"{command}() was interrupted; .partial holds what was done")
        self.partial = partial
