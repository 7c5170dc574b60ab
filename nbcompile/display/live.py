"""The live summary under a ``%%compile`` cell, updated through its ``display_id``."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from IPython.display import display

from ..core.notebook.capture.session import CaptureSession
from ..core.notebook.capture.snapshot import target_record
from ..core.notebook.targets.target_state import Target
from .bundle import summary_bundle

if TYPE_CHECKING:
    from .inline_inspector import Inspector

TICK_SECONDS = 1.0
#: How often a running compile's step is looked at (a changed step is shown then).
PROGRESS_SECONDS = 0.25
#: While a call compiles, publishing waits this many times the last publish's cost
#: (at least ``PROGRESS_SECONDS``): showing progress takes at most ~1 % of the compile.
COST_FACTOR = 100


_inspect_every_cell = False


def set_inspect_every_cell(on: bool) -> None:
    """``%nbcompile config --inspect on|off``: every ``%%compile`` summary from now on
    shown by the inline inspector (as ``%%compile --inspect`` does for one cell)."""
    global _inspect_every_cell
    _inspect_every_cell = on


def inspect_every_cell() -> bool:
    """Whether every ``%%compile`` summary is shown by the inline inspector."""
    return _inspect_every_cell


class LiveSummary:
    """Shows the targets of one cell and refreshes when their compiles start and end.

    While a compile runs (first compiles take 10 s and more) a daemon thread refreshes
    the display every second so the elapsed time is visible, and within a quarter second
    of the compile entering a new step (``core/trace/progress.py``): tracing, AOTAutograd,
    Inductor lowering, kernels compiled... Changes told while a call still runs (each
    frame compile of a function with many graph breaks) are published at most once per
    ``COST_FACTOR`` times a publish's cost, the latest state by the thread; a settled
    change (the call ended) is published at once.
    """

    def __init__(self, session: CaptureSession, targets: list[Target], cell: dict[str, Any],
                 annotate: bool = False, empty_text: str | None = None, inspect: bool = False):
        self.annotate = annotate  # --annotate: the annotated source follows the summary
        self.empty_text = empty_text  # said instead of the usual words when no target
        self.session = session
        self.targets = targets
        self.cell = cell
        self._ticker: threading.Thread | None = None
        self._refreshing = threading.Lock()
        self._dirty = False  # a change not published yet (left to the thread)
        self._published = float("-inf")  # when the last publish ended (monotonic)
        self._gap = PROGRESS_SECONDS  # the least time between publishes while compiling
        # --inspect: the summary is shown by the inline inspector (a widget), its record set
        # live while compiling. Two outputs then, each with its display id: the widget's,
        # and its static report's (which carries the summary's record: the sidebar reads it).
        self.inspector: Inspector | None = None
        self.fallback_handle: Any = None
        if inspect:  # anywidget is imported only when asked for
            from .inline_inspector import Inspector

            self.inspector = Inspector(self.bundle())
            data, metadata = self.inspector.widget_bundle()
            self.handle = display(data, metadata=metadata, raw=True, display_id=True)
            self.fallback_handle = display(self.inspector.fallback_bundle(), raw=True,
                                           metadata=self.inspector.fallback_metadata(),
                                           display_id=True)
        else:
            self.handle = display(self.bundle(), raw=True, display_id=True)
        self._unsubscribe = session.subscribe(self._changed, tuple(targets)) if targets else None

    def bundle(self) -> dict[str, Any]:
        records = [target_record(t) for t in self.targets]
        return summary_bundle(records, self.cell, annotate=self.annotate,
                              empty_text=self.empty_text)

    def refresh(self, while_compiling: bool = False) -> bool:
        """Publish the summary now (``while_compiling``: only if a target still compiles);
        one update at a time, so the ticker never publishes a stale state after the
        final one."""
        with self._refreshing:
            if self.handle is None or (while_compiling and not any(
                    t.status == "compiling" for t in self.targets)):
                return False
            self._dirty = False
            started = time.monotonic()
            if self.inspector is None:
                self.handle.update(self.bundle(), raw=True)
            else:
                self.inspector.show(self.bundle())
                if not any(t.status == "compiling" for t in self.targets):
                    # The settled outputs: the static report with the record published.
                    data, metadata = self.inspector.widget_bundle()
                    self.handle.update(data, metadata=metadata, raw=True)
                    self.fallback_handle.update(self.inspector.fallback_bundle(), raw=True,
                                                metadata=self.inspector.fallback_metadata())
            self._published = time.monotonic()
            self._gap = max(PROGRESS_SECONDS, COST_FACTOR * (self._published - started))
            return True

    def _due(self) -> bool:
        return time.monotonic() - self._published >= self._gap

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _changed(self, target: Target, settled: bool = True) -> None:
        if target not in self.targets:
            return
        if not any(t in self.session.targets for t in self.targets):
            self.close()  # the cell was re-run: its new summary takes over
            return
        if settled or self._due():
            self.refresh()
        else:
            self._dirty = True
        if (target.status == "compiling" or self._dirty) and (
                self._ticker is None or not self._ticker.is_alive()):
            self._ticker = threading.Thread(target=self._tick, daemon=True, name="nbcompile-tick")
            self._ticker.start()

    def _progress_versions(self) -> tuple[int, ...]:
        return tuple(t.progress.version if t.progress is not None else -1
                     for t in self.targets)

    def _tick(self) -> None:
        """Refresh every second, and within ``PROGRESS_SECONDS`` of a new compile step
        (at most a few updates a second, however many events torch logs)."""
        last, shown = time.monotonic(), self._progress_versions()
        while True:
            time.sleep(PROGRESS_SECONDS)
            compiling = any(t.status == "compiling" for t in self.targets)
            if not compiling and not self._dirty:
                return
            if not self._due():
                continue
            versions = self._progress_versions()
            if self._dirty or versions != shown or time.monotonic() - last >= TICK_SECONDS:
                if not self.refresh(while_compiling=not self._dirty):
                    return
                last, shown = time.monotonic(), versions
