"""The steps of a long command (``compare``, ``profile``, ``suggest``, ``diagnose``,
``open_trace``), told as they start to an optional ``progress`` callback.

Core functions take ``progress: Progress | None``; they call ``tell(progress, ...)`` and know
nothing of how it is shown (``display/progress.py`` words and shows it). A callback that
raises is ignored (a display problem never costs the user the result); Ctrl-C is not
caught: a command stopped by it raises an ``Interrupted`` carrying its partial result.

Torch can swallow a ``KeyboardInterrupt`` raised inside its own machinery (a guard check,
say), and the command would run on. Under ``ctrl_c_watched()`` a Ctrl-C is remembered as
well as raised; the command's ``except KeyboardInterrupt`` calls ``ctrl_c_delivered()``,
and one that never got there stops the command at its next ``tell``.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

_pending = False  # a Ctrl-C no command's handler has seen yet


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
    """Report a step to ``progress`` (nothing without one); a Ctrl-C torch swallowed is
    raised here."""
    global _pending
    if _pending and sys.exc_info()[0] is None:
        _pending = False
        raise KeyboardInterrupt
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


@contextlib.contextmanager
def ctrl_c_watched() -> Iterator[None]:
    """Remember each Ctrl-C while a long command runs (main thread only; the previous
    SIGINT handler runs too, and is put back)."""
    global _pending
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return

    def remember(signum: int, frame: FrameType | None) -> Any:
        global _pending
        _pending = True
        return previous(signum, frame)  # Python's own handler raises KeyboardInterrupt

    outer = _pending
    signal.signal(signal.SIGINT, remember)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _pending = outer


def ctrl_c_delivered() -> None:
    """A command's ``except KeyboardInterrupt`` saw the Ctrl-C: it is handled."""
    global _pending
    _pending = False
