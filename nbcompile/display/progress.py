"""The progress of a long command as ONE updating display: the step in words.

In a notebook front end an output updated through its ``display_id`` (a daemon thread
ticks the seconds and shows a new step within ``STEP_SECONDS``); in a plain terminal one
line on stderr rewritten in place; elsewhere (a pipe, nbconvert without a front end)
nothing while it runs. At the end the display is emptied, so a saved notebook keeps only
the result. Nothing is shown for a command that ends within ``DELAY_SECONDS``.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from ..core.steps import Step
from .units import format_bytes

#: Nothing is shown before this (quick commands leave no trace).
DELAY_SECONDS = 0.5
#: A new step is shown within this; the seconds tick every ``TICK_SECONDS``.
STEP_SECONDS = 0.25
TICK_SECONDS = 1.0

_NOUNS = {"compare": "mode", "profile": "step", "suggest": "trial", "diagnose": "rung"}


def step_text(step: Step) -> str:
    """``mode 2 of 4 (default): compiling``, ``trial 3 of 7 (graph_break ...)``,
    ``timing 4 modes, 6s of the budget left``."""
    noun = _NOUNS.get(step.command, "step")
    head = ""
    if step.total:
        head = f"{noun} {step.index} of {step.total}"
        if step.label:
            head += f" ({step.label})"
    elif step.label:
        head = step.label
    text = f"{head}: {step.what}" if head else step.what
    if step.remaining_s is not None:
        text += f", {max(step.remaining_s, 0):.0f}s of the budget left"
    return text


def reading_text(files_done: int, files_total: int, bytes_read: int) -> str:
    """``open_trace``'s progress: ``3 of 8 files, 120.5 MiB read``."""
    return f"{files_done} of {files_total} files, {format_bytes(bytes_read)} read"


def _front_end() -> Any:
    """The running kernel, if a front end shows displays (``None`` in a terminal)."""
    ipython = sys.modules.get("IPython")  # not imported: no front end (the CLI stays light)
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) if shell is not None else None


class ProgressLine:
    """Shows a command's steps in one updating place; use as a context manager::

        with ProgressLine("%compare") as progress:
            compare(fn, x, progress=progress)
    """

    def __init__(self, title: str, *, stream: Any = None,
                 delay: float = DELAY_SECONDS) -> None:
        """``delay``: seconds before anything is shown (a command done sooner shows
        nothing)."""
        self.title = title
        self._delay = delay
        self._stream = stream if stream is not None else sys.stderr
        self._kernel = _front_end() is not None
        self._terminal = not self._kernel and bool(getattr(self._stream, "isatty", lambda: False)())
        self._started = time.monotonic()
        self._text = "starting"
        self._version = 0
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._handle: Any = None
        self._width = 0
        self._thread: threading.Thread | None = None

    @property
    def shown(self) -> bool:
        """Whether anything was put on screen (a display, a terminal line)."""
        return self._handle is not None or self._width > 0

    def __enter__(self) -> ProgressLine:
        if self._kernel or self._terminal:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="nbcompile-progress")
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __call__(self, step: Step | str) -> None:
        """The ``progress`` callback: a new step (shown within ``STEP_SECONDS``)."""
        text = step if isinstance(step, str) else step_text(step)
        with self._lock:
            self._text, self._version = text, self._version + 1

    def line(self) -> str:
        elapsed = time.monotonic() - self._started
        return f"{self.title}: {self._text} \u00b7 {elapsed:.0f}s"

    def _run(self) -> None:
        if self._done.wait(self._delay):
            return
        shown, last = -1, 0.0
        while not self._done.is_set():
            with self._lock:
                version = self._version
                if version != shown or time.monotonic() - last >= TICK_SECONDS:
                    self._show(self.line())
                    shown, last = version, time.monotonic()
            self._done.wait(STEP_SECONDS)

    def _show(self, text: str) -> None:
        try:
            if self._kernel:
                from IPython.display import display

                bundle = {"text/plain": text}
                if self._handle is None:
                    self._handle = display(bundle, raw=True, display_id=True)
                else:
                    self._handle.update(bundle, raw=True)
            else:
                pad = max(self._width - len(text), 0)
                self._stream.write("\r" + text + " " * pad)
                self._stream.flush()
                self._width = len(text)
        except Exception:  # a display problem must never cost the user the result
            pass

    def close(self) -> None:
        """Stop; empty the display (or the terminal line): only the result stays."""
        self._done.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        with self._lock:
            try:
                if self._handle is not None:
                    self._handle.update({"text/plain": ""}, raw=True)
                elif self._width:
                    self._stream.write("\r" + " " * self._width + "\r")
                    self._stream.flush()
            except Exception:
                pass
