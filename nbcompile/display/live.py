"""The live summary under a ``%%compile`` cell, updated through its ``display_id``."""

from __future__ import annotations

import threading
from typing import Any

from IPython.display import display

from ..core.session import CaptureSession
from ..core.targets import Target
from .bundle import summary_bundle

TICK_SECONDS = 1.0


class LiveSummary:
    """Shows the targets of one cell and refreshes when their compiles start and end.

    While a compile runs (first compiles take 10 s and more) a daemon thread refreshes
    the display every second so the elapsed time is visible.
    """

    def __init__(self, session: CaptureSession, targets: list[Target], cell: dict[str, Any]):
        self.session = session
        self.targets = targets
        self.cell = cell
        self._ticker: threading.Thread | None = None
        self.handle = display(self.bundle(), raw=True, display_id=True)
        self._unsubscribe = session.subscribe(self._changed) if targets else None

    def bundle(self) -> dict[str, Any]:
        return summary_bundle([t.record() for t in self.targets], self.cell)

    def refresh(self) -> None:
        if self.handle is not None:
            self.handle.update(self.bundle(), raw=True)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _changed(self, target: Target) -> None:
        if target not in self.targets:
            return
        if not any(t in self.session.targets for t in self.targets):
            self.close()  # the cell was re-run: its new summary takes over
            return
        self.refresh()
        if target.status == "compiling" and (self._ticker is None or not self._ticker.is_alive()):
            self._ticker = threading.Thread(target=self._tick, daemon=True, name="nbcompile-tick")
            self._ticker.start()

    def _tick(self) -> None:
        stop = threading.Event()
        while not stop.wait(TICK_SECONDS):
            if not any(t.status == "compiling" for t in self.targets):
                return
            self.refresh()
